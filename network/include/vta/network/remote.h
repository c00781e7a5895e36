#pragma once
/// \file vta/network/remote.h
/// An Executor target on a device server (vta-device-server), through the module-level client
/// (vta/rpc/session.h) as the tutorials' "RPC setup" uses it: each VTA program is uploaded and loaded
/// once, when the executor is built; the weights and the activations are tensors in the server's
/// memory, so activations stay there between steps and only what a host operator reads or
/// verification compares comes back.
///
///   auto remote = std::make_shared<vta::rpc::Remote>(vta::rpc::connect("127.0.0.1", 9091));
///   vta::network::Executor ex(graph, config, vta::network::remote_target(remote));
///   vta::network::NetworkRun run = ex.run(input, {}, &reference);
///
/// The server's configuration must be the executor's (loading a program built for another one is
/// refused by the server, naming both). Errors are the session's (vta::rpc::RemoteError,
/// vta::rpc::CallError).

#include <memory>

#include "vta/network/executor.h"
#include "vta/rpc/session.h"

namespace vta::network {

/// The executor's tensors and programs in `remote`'s session (kept alive by the target).
std::shared_ptr<Target> remote_target(std::shared_ptr<rpc::Remote> remote);

}  // namespace vta::network
