#pragma once
/// \file vta/driver/json_field.h
/// A typed field of a JSON object read by a file reader (captures, weights manifests), for any
/// nlohmann-style JSON type: the error names the key and what was found, and integers are
/// range-checked before they are narrowed (2^63 or 1.5 is not a 32-bit count).
///
///   const uint32_t n = json_field<uint32_t>(header, "insn_count");   // std::invalid_argument naming it

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace vta {

template <class T, class Json>
T json_field(const Json& object, const char* key) {
  const std::string name = std::string("\"") + key + "\"";
  if (!object.is_object()) throw std::invalid_argument("expected an object holding " + name);
  const auto it = object.find(key);
  if (it == object.end()) throw std::invalid_argument("missing " + name);
  const Json& v = *it;
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw std::invalid_argument(name + " must be true or false, not " + v.dump());
    return v.template get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer()) throw std::invalid_argument(name + " must be an integer, not " + v.dump());
    const bool fits = v.is_number_unsigned()
                          ? v.template get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max())
                          : (v.template get<int64_t>() >= int64_t(std::numeric_limits<T>::min()) &&
                             (v.template get<int64_t>() < 0 ||
                              uint64_t(v.template get<int64_t>()) <= uint64_t(std::numeric_limits<T>::max())));
    if (!fits) {
      throw std::invalid_argument(name + " = " + v.dump() + " is out of range (" +
                                  std::to_string(std::numeric_limits<T>::min()) + " to " +
                                  std::to_string(std::numeric_limits<T>::max()) + ")");
    }
    return T(v.template get<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>());
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) throw std::invalid_argument(name + " must be a string, not " + v.dump());
    return v.template get<std::string>();
  } else {
    static_assert(std::is_same_v<T, std::string>, "json_field: bool, integers and strings");
  }
}

/// What a member of a JSON object must be, for json_member.
enum class JsonKind { kAny, kObject, kArray };

/// The member `key` of `object`, which must be there and of `kind`: std::invalid_argument naming the
/// key otherwise (the readers' structured fields: a capture's regions and result, ...).
template <class Json>
const Json& json_member(const Json& object, const char* key, JsonKind kind = JsonKind::kAny) {
  const std::string name = std::string("\"") + key + "\"";
  if (!object.is_object()) throw std::invalid_argument("expected an object holding " + name);
  const auto it = object.find(key);
  if (it == object.end()) throw std::invalid_argument("missing " + name);
  if (kind == JsonKind::kObject && !it->is_object()) {
    throw std::invalid_argument(name + " must be an object, not " + it->dump().substr(0, 64));
  }
  if (kind == JsonKind::kArray && !it->is_array()) {
    throw std::invalid_argument(name + " must be a list, not " + it->dump().substr(0, 64));
  }
  return *it;
}

}  // namespace vta
