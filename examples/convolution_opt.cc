// placeholder replaced below
#include "compiled.h"
namespace vta::tutorials {
Result compiled_convolution(uint32_t, std::ostream*, const ConvShape&) { Result r; r.error = "todo"; return r; }
}
