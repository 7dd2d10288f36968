#include "scenarios/compute_profile_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"

namespace weft {
namespace {

double fraction(const YamlMap& m, const std::string& key) {
  const double v = m.real(key);
  if (!(v > 0 && v <= 1)) {
    throw m.error(key, fmt::format("expected a fraction in (0, 1], got {}", v));
  }
  return v;
}

EfficiencyOverrides read_overrides(const YamlMap& m) {
  EfficiencyOverrides o;
  for (const EfficiencyField& f : kEfficiencyFields) {
    if (m.has(f.key)) o.*f.set = fraction(m, f.key);
  }
  m.reject_unknown_keys();
  return o;
}

void read_gpus(const YamlMap& gpus, ProfileOverrides& file) {
  for (const std::string& name : gpus.keys()) {
    const std::string_view canonical = at(gpus.location(name), "gpus", [&] { return catalogue::gpu(name).name; });
    file.gpus.push_back(GpuEfficiencies{std::string(canonical), read_overrides(gpus.map(name)), ""});
  }
  gpus.reject_unknown_keys();
}

ComputeProfile read_profile(const YamlMap& top, SoftwareStack software) {
  if (top.has("software")) {
    software = at(top.location("software"), [&] { return parse_software(top.string("software")); });
  }
  ProfileOverrides file;
  file.source = top.string_or("source", top.source());
  if (top.has("efficiency")) file.all = read_overrides(top.map("efficiency"));
  if (top.has("gpus")) read_gpus(top.map("gpus"), file);
  top.reject_unknown_keys();
  return with_profile_overrides(file, software);
}

}  // namespace

ComputeProfile parse_compute_profile(const std::string& text, const std::string& source_name, SoftwareStack software) {
  return read_profile(YamlMap::parse(text, source_name), software);
}

ComputeProfile load_compute_profile(const std::string& path, SoftwareStack software) {
  return read_profile(YamlMap::load_file(path), software);
}

namespace {

void write_overrides(YAML::Emitter& out, const EfficiencyOverrides& o) {
  out << YAML::Flow << YAML::BeginMap;
  for (const EfficiencyField& f : kEfficiencyFields) {
    if (o.*f.set) out << YAML::Key << f.key << YAML::Value << fmt::format("{:.4f}", *(o.*f.set));
  }
  out << YAML::EndMap;
}

}  // namespace

std::string compute_profile_yaml(const ProfileOverrides& file, const std::vector<std::string>& comments) {
  YAML::Emitter out;
  for (const std::string& line : comments) out << YAML::Comment(line) << YAML::Newline;
  out << YAML::BeginMap;
  out << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << file.source;
  if (file.all) {
    out << YAML::Key << "efficiency" << YAML::Value;
    write_overrides(out, *file.all);
  }
  if (!file.gpus.empty()) {
    out << YAML::Key << "gpus" << YAML::Value << YAML::BeginMap;
    for (const GpuEfficiencies& g : file.gpus) {
      out << YAML::Key << g.gpu << YAML::Value;
      write_overrides(out, g.set);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace weft
