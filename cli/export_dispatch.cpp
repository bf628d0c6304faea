// `orrery export` reads a report for most formats and a trace for perfetto;
// the two live in different parts (report/tools, viewer/), so the front end
// picks one by the --format value and nothing else.

#include <string_view>

#include "export_dispatch.h"
#ifdef ORRERY_HAVE_REPORT_TOOLS
#include "orrery/report/tools/commands.h"
#endif
#ifdef ORRERY_HAVE_VIEWER
#include "orrery/viewer/commands.h"
#endif

#ifdef ORRERY_HAVE_REPORT_TOOLS
namespace orrery::cli {

int export_dispatch(int argc, char** argv) {
#ifdef ORRERY_HAVE_VIEWER
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--format=perfetto" || (arg == "--format" && i + 1 < argc && std::string_view(argv[i + 1]) == "perfetto")) {
      return viewer::perfetto_export_command(argc, argv);
    }
  }
#endif
  return report::tools::export_command(argc, argv);
}

}  // namespace orrery::cli
#endif
