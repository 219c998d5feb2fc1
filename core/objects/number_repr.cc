// Python's repr of floats and of ints of any size, from their values.
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <limits>
#include <system_error>

#include "core/objects/values.h"

namespace pyunwind {

std::string ValueFormatter::FloatRepr(double value) {
  if (value != value) return "nan";
  if (value == std::numeric_limits<double>::infinity()) return "inf";
  if (value == -std::numeric_limits<double>::infinity()) return "-inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  if (ec != std::errc()) return "?";
  const std::string text(buffer, end);  // "-d.ddde+XX", shortest round-trip digits
  const bool negative = text[0] == '-';
  const size_t e = text.find('e');
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  const int exponent = std::atoi(text.c_str() + e + 1);
  const int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt
  std::string out = negative ? "-" : "";
  const int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {  // Python's float_repr_style 'r'
    out += digits[0];
    if (n > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
  } else if (decpt <= 0) {
    out += "0." + std::string(-decpt, '0') + digits;
  } else if (decpt < n) {
    out += digits.substr(0, decpt) + "." + digits.substr(decpt);
  } else {
    out += digits + std::string(decpt - n, '0') + ".0";
  }
  return out;
}

std::string ValueFormatter::DigitsToDecimal(std::vector<uint32_t> d) {
  while (!d.empty() && d.back() == 0) d.pop_back();
  if (d.empty()) return "0";
  std::vector<uint32_t> chunks;  // base 10^9, least significant first
  while (!d.empty()) {
    uint64_t remainder = 0;
    for (size_t i = d.size(); i-- > 0;) {
      const uint64_t current = (remainder << 30) | d[i];
      d[i] = static_cast<uint32_t>(current / 1000000000u);
      remainder = current % 1000000000u;
    }
    chunks.push_back(static_cast<uint32_t>(remainder));
    while (!d.empty() && d.back() == 0) d.pop_back();
  }
  std::string out = std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) out += fmt::format("{:09d}", chunks[i]);
  return out;
}

}  // namespace pyunwind
