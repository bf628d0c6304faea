#pragma once
// Human-readable output for the cube tools: values with units (s/ms/µs,
// bytes), percentages, aligned text tables, and CSV quoting.

#include <string>
#include <vector>

namespace orrery::report::tools {

/// A value in the metric's unit made readable: "1.234 s", "12.5 ms", "3.0 MiB", "1,204".
[[nodiscard]] std::string format_value(double value, const std::string& unit);
/// "12.3%"; "-" when the total is zero.
[[nodiscard]] std::string format_percent(double part, double total);
/// A number with a fixed count of decimals ("0.450").
[[nodiscard]] std::string format_fixed(double value, int decimals);
/// A plain number with up to six significant digits ("0.25", "1e-09").
[[nodiscard]] std::string format_number(double value);
/// A number with full precision for CSV/JSON-like text (round-trips exactly).
[[nodiscard]] std::string exact_number(double value);
/// Quotes a CSV field if it contains a comma, quote or newline.
[[nodiscard]] std::string csv_field(const std::string& text);

/// A text table with columns aligned by display width (UTF-8 aware).
class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct ColumnSpec {
    std::string title;
    Align align = Align::kRight;
  };
  explicit TextTable(std::vector<ColumnSpec> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  [[nodiscard]] std::string render() const;

 private:
  std::vector<ColumnSpec> columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// Joins fields into one CSV line (quoting as needed), ending with '\n'.
[[nodiscard]] std::string csv_line(const std::vector<std::string>& fields);

}  // namespace orrery::report::tools
