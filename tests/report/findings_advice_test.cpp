// A finding's advice (report/src/findings.cpp): the call path and processes
// to change, the seconds as the rest of the finding prints them, and where
// the measurement saw only MPI calls inside the culprit, how to see more.

#include <gtest/gtest.h>

#include <string>

#include "orrery/report/findings.h"

namespace orrery::report {
namespace {

RootCauseFinding late_sender_caused_by(const std::string& path, double short_term) {
  RootCauseFinding finding;
  finding.pattern = "late_sender";
  finding.title = "Late Sender";
  finding.explained = 0.9;
  RootCause cause;
  cause.path = path;
  cause.short_term = short_term;
  cause.long_term = short_term / 4;
  cause.ranks = {RankValue{3, short_term}};
  finding.causes.push_back(cause);
  return finding;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(FindingAdvice, NamesTheCulpritsFunctionAndProcess) {
  const std::string advice = root_cause_advice(late_sender_caused_by("main/solve/relax", 2.5), "");
  EXPECT_TRUE(contains(advice, "rank 3 spends in relax (main/solve/relax)")) << advice;
  EXPECT_TRUE(contains(advice, "2.500 s of Late Sender directly")) << advice;
  EXPECT_FALSE(contains(advice, "orrery-instrument")) << advice;
}

TEST(FindingAdvice, SecondsBelowOneKeepTheirDigits) {
  const std::string advice = root_cause_advice(late_sender_caused_by("main/relax", 0.00026), "");
  EXPECT_TRUE(contains(advice, "0.000260 s of Late Sender")) << advice;
  EXPECT_TRUE(contains(advice, "0.000065 s more")) << advice;
}

TEST(FindingAdvice, AnOutermostRegionPointsAtCompilerHooks) {
  const std::string advice = root_cause_advice(late_sender_caused_by("stencil2d", 0.5), "");
  EXPECT_TRUE(contains(advice, "stencil2d is the program's outermost region")) << advice;
  EXPECT_TRUE(contains(advice, "orrery-instrument")) << advice;
}

TEST(FindingAdvice, WithoutCausesTheDiagnosis) {
  RootCauseFinding finding = late_sender_caused_by("main", 1.0);
  finding.causes.clear();
  EXPECT_EQ(root_cause_advice(finding, "Post the receive later."), "Post the receive later.");
  EXPECT_EQ(root_cause_advice(finding, ""), "No delay costs explain this waiting.");
}

}  // namespace
}  // namespace orrery::report
