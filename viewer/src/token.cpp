#include "token.h"

#include <array>
#include <cstdio>
#include <memory>

#include "orrery/error.h"

namespace orrery::viewer {

std::string random_token() {
  std::array<unsigned char, 16> bytes{};
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> urandom(std::fopen("/dev/urandom", "rb"),
                                                                &std::fclose);
  if (!urandom || std::fread(bytes.data(), 1, bytes.size(), urandom.get()) != bytes.size()) {
    throw Error("cannot read /dev/urandom for the access token", kExitBadInput);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4U];
    token += kHex[b & 0xFU];
  }
  return token;
}

bool tokens_equal(std::string_view expected, std::string_view given) {
  if (expected.size() != given.size() || expected.empty()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    difference |= static_cast<unsigned char>(expected[i] ^ given[i]);
  }
  return difference == 0;
}

}  // namespace orrery::viewer
