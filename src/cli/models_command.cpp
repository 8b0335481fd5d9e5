// `keel models list` and `keel model pull`: the GGUF files of the local models folder, and
// downloading one into it.
//
// Exit codes: 0 ok, 1 the listing or download failed (not found, checksum mismatch, network,
// file exists), 2 usage error (bad source, name or --sha256), 130 interrupted (Ctrl-C; the .part
// is kept for a resume).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "keel/gguf_info.hpp"
#include "keel/model_download.hpp"
#include "keel/model_files.hpp"

namespace keel::cli {
namespace {

constexpr int kExitFailed = 1;

struct ModelsListArgs {
  std::optional<std::string> dir;
  bool json = false;
};

struct ModelPullArgs {
  std::string source;
  std::optional<std::string> sha256, name, dir;
  bool force = false;
};

constexpr int kExitInterrupted = 130;

int report(const Status& s) {
  std::fprintf(stderr, "keel: %s\n", s.message().c_str());
  if (s.code() == ErrorCode::kCancelled) return kExitInterrupted;
  return s.code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailed;
}

// "4.7 GB", "512 B": decimal units, as download sites show sizes.
std::string human_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 4) {
    bytes /= 1000;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[unit]);
  return buf;
}

// "1.2B", "135M", "7K"; "-" for 0.
std::string human_params(uint64_t n) {
  if (n == 0) return "-";
  char buf[32];
  const auto d = static_cast<double>(n);
  if (d >= 1e9) std::snprintf(buf, sizeof buf, "%.1fB", d / 1e9);
  else if (d >= 1e6) std::snprintf(buf, sizeof buf, "%.0fM", d / 1e6);
  else if (d >= 1e3) std::snprintf(buf, sizeof buf, "%.0fK", d / 1e3);
  else std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
  return buf;
}

std::string human_duration(double seconds) {
  const auto s = static_cast<long long>(seconds);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s / 60) % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%llds", s);
  return buf;
}

Result<std::filesystem::path> folder(const std::optional<std::string>& flag) {
  if (flag) return std::filesystem::path(*flag);
  return models_dir();
}

nlohmann::json model_to_json(const ModelFile& m) {
  nlohmann::json j = {{"name", m.name}, {"path", m.path.string()}, {"size", m.size}};
  if (!m.info) {
    j["error"] = m.error;
    return j;
  }
  const GgufInfo& i = *m.info;
  j["architecture"] = i.architecture;
  j["model_name"] = i.name;
  j["parameters"] = i.parameter_count;
  j["quantization"] = i.quantization;
  j["context_length"] = i.context_length;
  j["chat_template"] = i.has_chat_template;
  j["vocab_size"] = i.vocab_size;
  j["gguf_version"] = i.version;
  return j;
}

int list_command(const ModelsListArgs& args) {
  Result<std::filesystem::path> dir = folder(args.dir);
  if (!dir.ok()) return report(dir.status());
  Result<std::vector<ModelFile>> models = list_models(*dir);
  if (!models.ok()) return report(models.status());
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const ModelFile& m : *models) out.push_back(model_to_json(m));
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  if (models->empty()) {
    std::fprintf(stderr, "no models in %s; download one with keel model pull\n", dir->string().c_str());
    return kExitOk;
  }
  std::printf("%-44s %9s %7s %-10s %8s %s\n", "NAME", "SIZE", "PARAMS", "QUANT", "CONTEXT", "TEMPLATE");
  for (const ModelFile& m : *models) {
    const std::string size = human_bytes(static_cast<double>(m.size));
    if (!m.info) {
      std::printf("%-44s %9s error: %s\n", m.name.c_str(), size.c_str(), m.error.c_str());
      continue;
    }
    const GgufInfo& i = *m.info;
    const std::string context = i.context_length ? std::to_string(i.context_length) : "-";
    std::printf("%-44s %9s %7s %-10s %8s %s\n", m.name.c_str(), size.c_str(), human_params(i.parameter_count).c_str(),
                i.quantization.empty() ? "-" : i.quantization.c_str(), context.c_str(),
                i.has_chat_template ? "yes" : "no");
  }
  return kExitOk;
}

// Redraws one status line on a terminal; prints a single summary line elsewhere (logs stay short).
void show_progress(const ModelPullProgress& p, bool tty) {
  std::string line = human_bytes(static_cast<double>(p.bytes));
  if (p.total > 0) {
    const double fraction = std::min(1.0, static_cast<double>(p.bytes) / static_cast<double>(p.total));
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(std::lround(fraction * kWidth));
    char pct[16];
    std::snprintf(pct, sizeof pct, "%3.0f%%", fraction * 100);
    line = "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(kWidth - filled), ' ');
    line.append("] ").append(pct).append(" ").append(human_bytes(static_cast<double>(p.bytes)));
    line.append(" / ").append(human_bytes(static_cast<double>(p.total)));
  }
  line.append("  ").append(human_bytes(p.bytes_per_second)).append("/s");
  if (p.total > 0 && p.bytes_per_second > 0 && !p.done) {
    const double left = static_cast<double>(static_cast<uint64_t>(p.total) - std::min<uint64_t>(p.bytes, p.total));
    line.append("  ETA ").append(human_duration(left / p.bytes_per_second));
  }
  if (tty) {
    std::fprintf(stderr, "\r%-90s%s", line.c_str(), p.done ? "\n" : "");
  } else if (p.done) {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

int pull_command(const ModelPullArgs& args) {
  ModelPullOptions o = model_pull_default_options();
  o.source = args.source;
  o.name = args.name;
  o.sha256 = args.sha256;
  o.force = args.force;
  Result<std::filesystem::path> dir = folder(args.dir);
  if (!dir.ok()) return report(dir.status());
  o.dir = *dir;
  const bool tty = isatty(STDERR_FILENO) == 1;
  o.on_progress = [tty](const ModelPullProgress& p) { show_progress(p, tty); };
  o.stop = install_interrupt_handler();

  Result<ModelPullResult> pulled = pull_model(o);
  if (!pulled.ok()) return report(pulled.status());
  const ModelPullResult& r = *pulled;
  std::printf("saved %s (%s", r.path.string().c_str(), human_bytes(static_cast<double>(r.bytes)).c_str());
  if (r.resumed_from > 0) std::printf(", resumed at byte %llu", static_cast<unsigned long long>(r.resumed_from));
  std::printf(")\n");
  if (r.verified_by.empty()) {
    std::printf("sha256 %s (not verified: pass --sha256 to check it)\n", r.sha256.c_str());
  } else {
    std::printf("sha256 %s verified (%s)\n", r.sha256.c_str(), r.verified_by.c_str());
  }
  Result<GgufInfo> info = read_gguf_info(r.path);
  if (!info.ok()) {
    std::fprintf(stderr, "keel: warning: %s\n", info.status().message().c_str());
  } else {
    std::printf("%s %s %s, context %llu; use it with --model local/%s\n",
                info->architecture.empty() ? "unknown architecture" : info->architecture.c_str(),
                human_params(info->parameter_count).c_str(), info->quantization.c_str(),
                static_cast<unsigned long long>(info->context_length), r.path.stem().string().c_str());
  }
  return kExitOk;
}

}  // namespace

void add_model_commands(CLI::App& app, CommandAction& action) {
  const std::string footer =
      "Models live in $KEEL_MODELS_DIR, else $XDG_DATA_HOME/keel/models, else ~/.local/share/keel/models.\n"
      "Exit codes: 0 ok, 1 failed, 2 usage error, 130 interrupted (run again to resume).\n";
  CLI::App* models = app.add_subcommand("models", command_summary("models"));
  models->require_subcommand(1);
  auto list = std::make_shared<ModelsListArgs>();
  CLI::App* list_cmd = models->add_subcommand("list", "List the models folder's GGUF files with what their headers say");
  list_cmd->add_option("--dir", list->dir, "Models folder (default: see below)");
  list_cmd->add_flag("--json", list->json, "Print a JSON array of model objects");
  list_cmd->footer(footer);
  list_cmd->callback([&action, list]() { action = [list]() { return list_command(*list); }; });

  CLI::App* model = app.add_subcommand("model", command_summary("model"));
  model->require_subcommand(1);
  auto pull = std::make_shared<ModelPullArgs>();
  CLI::App* pull_cmd = model->add_subcommand("pull", "Download (or resume downloading) a GGUF file, checking its SHA-256");
  pull_cmd->add_option("source", pull->source, "An http(s) URL, or hf:OWNER/REPO/PATH.gguf[@REVISION] (uses $HF_ENDPOINT, $HF_TOKEN)")
      ->required();
  pull_cmd->add_option("--sha256", pull->sha256, "Expected SHA-256 (default: the one Hugging Face reports, if any)");
  pull_cmd->add_option("--name", pull->name, "File name in the models folder (default: the source's file name)");
  pull_cmd->add_option("--dir", pull->dir, "Models folder (default: see below)");
  pull_cmd->add_flag("--force", pull->force, "Replace a file of the same name");
  pull_cmd->footer(footer);
  pull_cmd->callback([&action, pull]() { action = [pull]() { return pull_command(*pull); }; });
}

}  // namespace keel::cli
