// `orrery findings REPORT [--top K] [--format table|json]`: the wait states
// ranked by what removing their root causes would gain, with where, why,
// gain, confidence and advice (orrery/report/findings.h).

#include <iostream>
#include <nlohmann/json.hpp>

#include "orrery/report/findings.h"
#include "orrery/report/tools/commands.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

nlohmann::json ranks_json(const std::vector<RankValue>& ranks) {
  nlohmann::json list = nlohmann::json::array();
  for (const RankValue& r : ranks) list.push_back({{"rank", r.rank}, {"seconds", r.seconds}});
  return list;
}

nlohmann::json finding_json(const RootCauseFinding& f) {
  nlohmann::json causes = nlohmann::json::array();
  for (const RootCause& c : f.causes) {
    causes.push_back({{"callpath", c.path},
                      {"short_term", c.short_term},
                      {"long_term", c.long_term},
                      {"ranks", ranks_json(c.ranks)}});
  }
  return {{"pattern", f.pattern},
          {"title", f.title},
          {"waiting", f.waiting},
          {"share", f.share},
          {"callpath", f.path},
          {"affected", ranks_json(f.affected)},
          {"causes", std::move(causes)},
          {"gain", f.gain},
          {"gain_basis", f.gain_basis},
          {"confidence", {{"explained", f.explained}, {"clock_corrections", f.clock_corrections}}},
          {"advice", f.advice}};
}

}  // namespace

int findings_command(int argc, char** argv) {
  CLI::App app{
      "The wait states of a report ranked by the estimated gain of removing their root causes: "
      "what (pattern), where (call path, most affected ranks), why (the call paths and ranks "
      "carrying the delay costs), gain, confidence and advice.",
      "orrery findings"};
  std::string report;
  std::size_t top = 5;
  OutputFormat format = OutputFormat::kTable;
  app.add_option("report", report, "report file (report.h5)")->required();
  app.add_option("-k,--top", top, "how many findings to list (0 = all)")->capture_default_str();
  add_format_option(app, format, {"table", "json"});
  return run_tool(app, argc, argv, [&] {
    open_report(report);  // notes the file for the crash guard and validates it
    const auto findings = root_cause_findings(report, top);
    if (format == OutputFormat::kJson) {
      nlohmann::json list = nlohmann::json::array();
      for (const RootCauseFinding& f : findings) list.push_back(finding_json(f));
      std::cout << nlohmann::json{{"report", report}, {"findings", std::move(list)}}.dump(2)
                << "\n";
      return;
    }
    std::cout << findings_text(findings);
  });
}

}  // namespace orrery::report::tools
