#include "tar_writer.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "orrery/error.h"

namespace orrery::report::tools {
namespace {

constexpr std::size_t kBlock = 512;

/// An octal field of `width` bytes: digits, then a NUL.
void octal(char* field, std::size_t width, unsigned long long value) {
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1), value);
}

}  // namespace

void TarWriter::add(const std::string& name, std::string_view data) {
  if (name.size() > 100) throw InputError("tar member name too long: " + name);
  std::array<char, kBlock> header{};
  std::memcpy(header.data(), name.data(), name.size());   // name[100]
  octal(header.data() + 100, 8, 0644);                     // mode
  octal(header.data() + 108, 8, 0);                        // uid
  octal(header.data() + 116, 8, 0);                        // gid
  octal(header.data() + 124, 12, data.size());             // size
  octal(header.data() + 136, 12, static_cast<unsigned long long>(std::time(nullptr)));  // mtime
  header[156] = '0';                                       // typeflag: regular file
  std::memcpy(header.data() + 257, "ustar", 6);            // magic "ustar\0"
  std::memcpy(header.data() + 263, "00", 2);               // version
  // The checksum is computed with its own field as eight spaces.
  std::memset(header.data() + 148, ' ', 8);
  unsigned long sum = 0;
  for (const char c : header) sum += static_cast<unsigned char>(c);
  std::snprintf(header.data() + 148, 8, "%06lo", sum);     // six digits, NUL, space
  header[155] = ' ';
  out_.write(header.data(), kBlock);
  out_.write(data.data(), static_cast<std::streamsize>(data.size()));
  const std::size_t padding = (kBlock - data.size() % kBlock) % kBlock;
  const std::array<char, kBlock> zeros{};
  out_.write(zeros.data(), static_cast<std::streamsize>(padding));
}

void TarWriter::finish() {
  const std::array<char, kBlock> zeros{};
  out_.write(zeros.data(), kBlock);
  out_.write(zeros.data(), kBlock);
}

}  // namespace orrery::report::tools
