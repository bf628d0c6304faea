// The viewer's entry in `orrery --help` (orrery/viewer/commands.h). Its
// Perfetto export is reached through `orrery export` (cli/export_dispatch.cpp).

#include "orrery/viewer/commands.h"

namespace orrery::viewer {

Subcommands viewer_subcommands() {
  return {{"view", "browse a report (and compare with another) in the web browser", view_command}};
}

}  // namespace orrery::viewer
