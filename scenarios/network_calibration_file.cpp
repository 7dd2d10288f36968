#include "scenarios/network_calibration_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

CalibratedSeries read_series(const YamlMap& s) {
  CalibratedSeries f{s.string("kind"),
                     s.string("op"),
                     static_cast<uint32_t>(s.unsigned_integer("ranks")),
                     s.string_or("algorithm", ""),
                     s.string_or("protocol", ""),
                     s.string_or("link", "")};
  f.alpha_us = s.real("alpha_us");
  f.beta_GBps = s.real("beta_GBps");
  f.from_bytes = s.has("from_bytes") ? s.real("from_bytes") : 0;
  if (f.alpha_us < 0 || f.beta_GBps <= 0) {
    throw ConfigError(s.location(), "", "expected alpha_us >= 0 and beta_GBps > 0");
  }
  f.quality.points = s.unsigned_integer_or("points", 0);
  f.quality.outliers = s.unsigned_integer_or("outliers", 0);
  if (s.has("rms_rel_residual")) f.quality.rms_rel_residual = s.real("rms_rel_residual");
  if (s.has("max_rel_residual")) f.quality.max_rel_residual = s.real("max_rel_residual");
  return f;
}

GemmClassFit read_gemm(const YamlMap& g) {
  return GemmClassFit{g.string("class"), g.real("efficiency"), g.has("tflops") ? g.real("tflops") : 0,
                      g.unsigned_integer_or("points", 0)};
}

NetworkCalibration read_calibration(const YamlMap& top, const std::string& default_source) {
  if (top.string_or("format", "") != "weft-network-profile" || top.unsigned_integer_or("version", 0) != 1) {
    throw ConfigError(top.location(), "", "not a weft-network-profile version 1 (write one with weft calibrate)");
  }
  NetworkCalibration c;
  c.source = top.string_or("source", default_source);
  c.gpu = top.string_or("gpu", "");
  if (top.has("launch_overhead_us")) c.launch_us = top.real("launch_overhead_us");
  c.launch_from = top.string_or("launch_overhead_from", "");
  if (top.has("series")) {
    for (const YamlMap& s : top.list_of_maps("series")) c.series.push_back(read_series(s));
  }
  if (top.has("gemm")) {
    for (const YamlMap& g : top.list_of_maps("gemm")) c.gemm.push_back(read_gemm(g));
  }
  return c;
}

// A number as written with `spec` (a plain YAML scalar that reads back as that number).
template <typename T>
std::string number(const char* spec, T value) {
  return fmt::format(fmt::runtime(spec), value);
}

void write_series(YAML::Emitter& out, const CalibratedSeries& s) {
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << s.kind << YAML::Key << "op" << YAML::Value << s.op;
  out << YAML::Key << "ranks" << YAML::Value << s.ranks;
  out << YAML::Key << "algorithm" << YAML::Value << YAML::DoubleQuoted << s.algorithm;
  out << YAML::Key << "protocol" << YAML::Value << YAML::DoubleQuoted << s.protocol;
  out << YAML::Key << "link" << YAML::Value << YAML::DoubleQuoted << s.link;
  out << YAML::Key << "from_bytes" << YAML::Value << number("{:.0f}", s.from_bytes);
  out << YAML::Key << "alpha_us" << YAML::Value << number("{:.6g}", s.alpha_us);
  out << YAML::Key << "beta_GBps" << YAML::Value << number("{:.6g}", s.beta_GBps);
  out << YAML::Key << "points" << YAML::Value << s.quality.points;
  out << YAML::Key << "outliers" << YAML::Value << s.quality.outliers;
  out << YAML::Key << "rms_rel_residual" << YAML::Value << number("{:.4f}", s.quality.rms_rel_residual);
  out << YAML::Key << "max_rel_residual" << YAML::Value << number("{:.4f}", s.quality.max_rel_residual);
  out << YAML::EndMap;
}

void write_gemm(YAML::Emitter& out, const GemmClassFit& g) {
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "class" << YAML::Value << g.shape_class;
  out << YAML::Key << "efficiency" << YAML::Value << number("{:.4f}", g.efficiency);
  out << YAML::Key << "tflops" << YAML::Value << number("{:.4g}", g.tflops);
  out << YAML::Key << "points" << YAML::Value << g.points;
  out << YAML::EndMap;
}

}  // namespace

NetworkCalibration load_network_calibration(const std::string& path) {
  return read_calibration(YamlMap::load_file(path), path);
}

NetworkCalibration parse_network_calibration(const std::string& text, const std::string& source) {
  return read_calibration(YamlMap::parse(text, source), source);
}

std::string network_calibration_yaml(const NetworkCalibration& c) {
  YAML::Emitter out;
  out << YAML::Comment("weft calibrate: fitted latency (alpha) and effective bandwidth (beta, 1e9 bytes/s of the")
      << YAML::Newline << YAML::Comment("nccl-tests size) per series; residuals are relative (docs/schedule-json.md).")
      << YAML::Newline;
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << "weft-network-profile";
  out << YAML::Key << "version" << YAML::Value << 1;
  out << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << c.source;
  if (!c.gpu.empty()) out << YAML::Key << "gpu" << YAML::Value << c.gpu;
  if (c.launch_us) {
    out << YAML::Key << "launch_overhead_us" << YAML::Value << number("{:.4f}", *c.launch_us);
    out << YAML::Key << "launch_overhead_from" << YAML::Value << YAML::DoubleQuoted << c.launch_from;
  }
  out << YAML::Key << "series" << YAML::Value << YAML::BeginSeq;
  for (const CalibratedSeries& s : c.series) write_series(out, s);
  out << YAML::EndSeq;
  if (!c.gemm.empty()) {
    out << YAML::Key << "gemm" << YAML::Value << YAML::BeginSeq;
    for (const GemmClassFit& g : c.gemm) write_gemm(out, g);
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace weft
