// A struct's settable fields by dotted key, one line per knob: what each is (unit, range, doc), how
// to set it from text in the one grammar of every edge (sim/core/units.h: parse_real, parse_bool)
// and how to show it, built from a path of pointers to members. The table drives `--set`, scenario
// reading, `weft fields`, `weft systems --fields` and the docs tables, so a new knob is one line.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "sim/core/errors.h"
#include "sim/core/units.h"

namespace weft {

// The values a number may take, both ends included, in the field's own unit (bytes, ps, bps for
// sizes, times and rates); unbounded by default.
struct Range {
  double least = -std::numeric_limits<double>::infinity();
  double most = std::numeric_limits<double>::infinity();

  bool bounded() const {
    return least > -std::numeric_limits<double>::infinity() || most < std::numeric_limits<double>::infinity();
  }
  bool holds(double v) const { return v >= least && v <= most; }
};

// "1 to 64", "at least 1", "at most 8", or "" when unbounded.
std::string describe(const Range& range);

template <class S>
struct Field {
  std::string_view key;
  std::string_view unit;  // "" when the value has none
  std::string_view doc;
  void (*assign)(S& object, std::string_view key, std::string_view text);  // ConfigError naming the key
  std::string (*show)(const S& object);
  Range range = {};
  double (*number)(const S& object) = nullptr;  // a ranged field's value, compared with `range`

  // Parses `text` into the field; a value out of range is refused and leaves `object` as it was.
  void set(S& object, std::string_view k, std::string_view text) const {
    if (number == nullptr || !range.bounded()) return assign(object, k, text);
    S trial = object;
    assign(trial, k, text);
    if (!range.holds(number(trial))) {
      throw ConfigError(SourceLocation{}, std::string(k), fmt::format("expected {}, got {}", describe(range), text));
    }
    object = std::move(trial);
  }
};

namespace field_detail {

// The member at `Path` (outermost first) of `object`.
template <auto First, auto... Rest, class T>
constexpr auto& member(T& object) {
  auto& m = object.*First;
  if constexpr (sizeof...(Rest) == 0) {
    return m;
  } else {
    return member<Rest...>(m);
  }
}

template <class V>
struct IsOptional : std::false_type {};
template <class V>
struct IsOptional<std::optional<V>> : std::true_type {};

template <class V>
V parse(std::string_view key, std::string_view text) {
  if constexpr (IsOptional<V>::value) {
    return parse<typename V::value_type>(key, text);
  } else if constexpr (std::is_same_v<V, bool>) {
    return parse_bool(text, key);
  } else if constexpr (std::is_integral_v<V>) {
    using Wide = std::conditional_t<std::is_signed_v<V>, int64_t, uint64_t>;
    Wide v{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      throw ConfigError(SourceLocation{}, std::string(key), fmt::format("expected a whole number, got '{}'", text));
    }
    if (v > static_cast<Wide>(std::numeric_limits<V>::max())) {
      throw ConfigError(SourceLocation{}, std::string(key),
                        fmt::format("expected at most {}, got {}", std::numeric_limits<V>::max(), v));
    }
    if constexpr (std::is_signed_v<V>) {
      if (v < static_cast<Wide>(std::numeric_limits<V>::min())) {
        throw ConfigError(SourceLocation{}, std::string(key),
                          fmt::format("expected at least {}, got {}", std::numeric_limits<V>::min(), v));
      }
    }
    return static_cast<V>(v);
  } else if constexpr (std::is_floating_point_v<V>) {
    return parse_real(text, key);
  } else if constexpr (std::is_same_v<V, Bytes>) {
    return parse_bytes(text, key);
  } else if constexpr (std::is_same_v<V, Time>) {
    return parse_time(text, key);
  } else if constexpr (std::is_same_v<V, Bandwidth>) {
    return parse_bandwidth(text, key);
  } else {
    return V(text);
  }
}

template <class V>
std::string show(const V& v) {
  if constexpr (IsOptional<V>::value) {
    return v ? show(*v) : std::string();  // unset shows as ""
  } else if constexpr (std::is_same_v<V, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_arithmetic_v<V>) {
    return fmt::format("{}", +v);  // + shows a uint8_t as a number
  } else if constexpr (std::is_same_v<V, Bytes>) {
    return fmt::format("{}", v.count());
  } else if constexpr (std::is_same_v<V, Time>) {
    return fmt::format("{}ps", v.ps());
  } else if constexpr (std::is_same_v<V, Bandwidth>) {
    return fmt::format("{}bps", v.bps());
  } else {
    return std::string(v);
  }
}

// A value as a number in its own unit, for the range check (an unset optional passes).
template <class V>
double number(const V& v) {
  if constexpr (IsOptional<V>::value) {
    return v ? number(*v) : std::numeric_limits<double>::quiet_NaN();
  } else if constexpr (std::is_arithmetic_v<V>) {
    return static_cast<double>(v);
  } else if constexpr (std::is_same_v<V, Bytes>) {
    return static_cast<double>(v.count());
  } else if constexpr (std::is_same_v<V, Time>) {
    return static_cast<double>(v.ps());
  } else if constexpr (std::is_same_v<V, Bandwidth>) {
    return static_cast<double>(v.bps());
  } else {
    static_assert(sizeof(V) == 0, "a range needs a number");
  }
}

}  // namespace field_detail

// A number, a flag or a name at `Path`, e.g. field<ClusterSpec, &ClusterSpec::node, &NodeSpec::gpus>;
// a number may be limited to `range`.
template <class S, auto... Path>
constexpr Field<S> field(std::string_view key, std::string_view unit, std::string_view doc, Range range = {}) {
  using V = std::remove_cvref_t<decltype(field_detail::member<Path...>(std::declval<S&>()))>;
  double (*number)(const S&) = nullptr;
  if constexpr (!std::is_same_v<V, std::string> && !std::is_same_v<V, bool>) {
    number = [](const S& s) { return field_detail::number(field_detail::member<Path...>(s)); };
  }
  return {key,
          unit,
          doc,
          [](S& s, std::string_view k, std::string_view text) {
            field_detail::member<Path...>(s) = field_detail::parse<V>(k, text);
          },
          [](const S& s) { return field_detail::show(field_detail::member<Path...>(s)); },
          range,
          number};
}

// An enumeration at `Path`, read by `Parse(key, text)` (ConfigError listing the choices) and shown
// by `Name(value)`.
template <class S, auto Parse, auto Name, auto... Path>
constexpr Field<S> choice(std::string_view key, std::string_view doc) {
  return {key, "", doc,
          [](S& s, std::string_view k, std::string_view text) { field_detail::member<Path...>(s) = Parse(k, text); },
          [](const S& s) { return std::string(Name(field_detail::member<Path...>(s))); }};
}

// An enumeration whose values are named by `*Names`, in the enum's order, e.g.
// named<PacketConfig, &kSchedulers, &PacketConfig::switches, &SwitchConfig::scheduler>.
template <class S, const auto* Names, auto... Path>
constexpr Field<S> named(std::string_view key, std::string_view doc) {
  using E = std::remove_cvref_t<decltype(field_detail::member<Path...>(std::declval<S&>()))>;
  return {key, "", doc,
          [](S& s, std::string_view k, std::string_view text) {
            for (size_t i = 0; i < Names->size(); ++i) {
              if ((*Names)[i] == text) {
                field_detail::member<Path...>(s) = static_cast<E>(i);
                return;
              }
            }
            throw ConfigError(SourceLocation{}, std::string(k),
                              fmt::format("unknown value '{}' (expected {})", text, fmt::join(*Names, " or ")));
          },
          [](const S& s) { return std::string((*Names)[static_cast<size_t>(field_detail::member<Path...>(s))]); }};
}

// The fields as README.md's Markdown table (key, unit, doc; a '|' in a doc escaped): the docs are
// this text, and a test proves the README holds it. A range, where a field has one, ends its doc.
template <class S>
std::string markdown_table(std::span<const Field<S>> fields) {
  std::string out = "| key | unit | what it is |\n|---|---|---|\n";
  for (const Field<S>& f : fields) {
    out += fmt::format("| `{}` | {} | ", f.key, f.unit);
    for (char c : f.doc) out += c == '|' ? std::string("\\|") : std::string(1, c);
    if (f.range.bounded()) out += fmt::format(" ({})", describe(f.range));
    out += " |\n";
  }
  return out;
}

}  // namespace weft
