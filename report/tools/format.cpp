#include "format.h"

#include <cmath>
#include <cstdio>

namespace orrery::report::tools {
namespace {

/// `value` with `decimals` digits after the point, then `suffix` after a space (if any).
std::string fixed(double value, int decimals, const char* suffix = "") {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return std::string(text) + (*suffix != '\0' ? " " : "") + suffix;
}

/// `value` with `digits` significant digits (%g style).
std::string significant(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

/// Number of characters a terminal shows for UTF-8 text (counts code points).
std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++width;
    }
  }
  return width;
}

std::string seconds(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude == 0.0) {
    return "0 s";
  }
  if (magnitude >= 1.0) {
    return fixed(value, 3, "s");
  }
  if (magnitude >= 1e-3) {
    return fixed(value * 1e3, 3, "ms");
  }
  if (magnitude >= 1e-6) {
    return fixed(value * 1e6, 3, "µs");
  }
  return fixed(value * 1e9, 1, "ns");
}

std::string bytes(double value) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double scaled = value;
  std::size_t unit = 0;
  while (std::fabs(scaled) >= 1024.0 && unit + 1 < std::size(kUnits)) {
    scaled /= 1024.0;
    ++unit;
  }
  return fixed(scaled, unit == 0 ? 0 : 1, kUnits[unit]);
}

/// Whole counts with thousands separators, fractions (means, diffs) with two decimals.
std::string occurrences(double value) {
  if (value != std::floor(value) || std::fabs(value) >= 1e15) {
    return fixed(value, 2);
  }
  std::string digits = fixed(std::fabs(value), 0);
  for (std::size_t pos = digits.size(); pos > 3; pos -= 3) {
    digits.insert(pos - 3, ",");
  }
  return (value < 0 ? "-" : "") + digits;
}

}  // namespace

std::string format_value(double value, const std::string& unit) {
  if (unit == "sec") {
    return seconds(value);
  }
  if (unit == "bytes") {
    return bytes(value);
  }
  if (unit == "occ") {
    return occurrences(value);
  }
  return format_number(value) + (unit.empty() ? "" : " " + unit);
}

std::string format_percent(double part, double total) {
  if (total == 0.0) {
    return "-";
  }
  return fixed(100.0 * part / total, 1) + "%";
}

std::string format_fixed(double value, int decimals) { return fixed(value, decimals); }

std::string format_number(double value) { return significant(value, 6); }

std::string exact_number(double value) { return significant(value, 17); }

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) {
    return text;
  }
  std::string quoted = "\"";
  for (const char c : text) {
    quoted += c;
    if (c == '"') {
      quoted += '"';
    }
  }
  return quoted + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    line += (i == 0 ? "" : ",") + csv_field(fields[i]);
  }
  return line + "\n";
}

std::string TextTable::render() const {
  std::vector<std::size_t> widths;
  for (const auto& column : columns_) {
    widths.push_back(display_width(column.title));
  }
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(row[c]));
    }
  }
  std::string out;
  auto append_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string padding(widths[c] - display_width(cell), ' ');
      const bool last = c + 1 == columns_.size();
      if (columns_[c].align == Align::kRight) {
        line += padding + cell;
      } else {
        line += cell + (last ? "" : padding);
      }
      line += last ? "" : "  ";
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  };
  std::vector<std::string> titles;
  for (const auto& column : columns_) {
    titles.push_back(column.title);
  }
  append_row(titles);
  for (const auto& row : rows_) {
    append_row(row);
  }
  return out;
}

}  // namespace orrery::report::tools
