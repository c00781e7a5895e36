// vta: one command for users of the stack (docs/CLI.md): run captured programs and built modules on
// any backend, capture and replay runs, disassemble, show statistics and timelines, check
// configurations.

#include <CLI/CLI.hpp>

#include "commands.h"
#include "vta/driver/guarded_main.h"

static int run(int argc, char** argv) {
  CLI::App app{"vta: the Versatile Tensor Accelerator's command (docs/CLI.md)", "vta"};
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  VTA_CAPTURE=caps ./my_program        # or: vta capture -o caps -- ./my_program\n"
      "  vta disasm caps/my_program-*-000000.vtacap\n"
      "  vta replay caps/my_program-*-000000.vtacap --target tsim\n"
      "  vta run module.vtam --target tsim --json\n"
      "  vta estimate module.vtam --measure tsim\n"
      "  vta config check my_config.json");
  vta::cli::Commands commands;
  vta::cli::add_run_commands(app, commands);
  vta::cli::add_inspect_commands(app, commands);
  vta::cli::add_timeline_command(app, commands);
  vta::cli::add_estimate_command(app, commands);
  VTA_CLI_PARSE(app, argc, argv);
  return commands.run_parsed();
}

int main(int argc, char** argv) {
  return vta::guarded_main("vta", [&] { return run(argc, argv); });
}
