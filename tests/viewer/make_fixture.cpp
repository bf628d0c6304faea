// viewer_fixture OUT.h5 [--callpaths N] [--locations L] [--seed S] [--scale X]
//                [--without-metric NAME]...
// Writes a synthetic report through orrery::report's CubeWriter.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "fixture_cube.h"
#include "orrery/error.h"
#include "orrery/report/hdf5_io.h"

int main(int argc, char** argv) {
  CLI::App app{"Writes a synthetic report for the viewer's tests and benchmark."};
  std::string out;
  orrery::viewer::testing::FixtureSpec spec;
  app.add_option("OUT", out, "report to write")->required();
  app.add_option("--callpaths", spec.callpaths, "number of call paths")->check(CLI::Range(4, 10000000));
  app.add_option("--locations", spec.locations, "number of processes")->check(CLI::Range(1, 1000000));
  app.add_option("--seed", spec.seed, "random seed");
  app.add_option("--scale", spec.scale, "factor on every time value");
  std::vector<std::string> without;
  app.add_option("--without-metric", without, "leave this metric out (its sub-metrics move up)");
  CLI11_PARSE(app, argc, argv);
  try {
    auto cube = orrery::viewer::testing::make_fixture_cube(spec);
    for (const auto& name : without) orrery::viewer::testing::drop_metric(cube, name);
    orrery::report::CubeWriter writer(out, cube.header);
    for (std::size_t m = 0; m < cube.values.size(); ++m) writer.write_metric(m, cube.values[m]);
    writer.close();
  } catch (const orrery::Error& e) {
    std::fprintf(stderr, "viewer_fixture: %s\n", e.what());
    return e.exit_status();
  }
  return 0;
}
