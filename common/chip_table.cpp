#include "common/chip_table.h"

namespace gpubench {
namespace {

constexpr std::size_t KiB = 1024, MiB = KiB * KiB;

// SM count and L2 from each architecture's whitepaper or the product's datasheet; L1/shared per SM and
// the shared-memory maximum from the CUDA C++ Programming Guide's "Technical Specifications per Compute
// Capability" table.
KnownChip chip(const char* key, const char* name, int sms, std::size_t l1_kib, std::size_t shared_kib,
               std::size_t l2_mib, int major, int minor, const char* source) {
  return KnownChip{key, name, ChipShape{sms, l1_kib * KiB, shared_kib * KiB, l2_mib * MiB, true, major, minor}, source};
}

}  // namespace

const std::vector<KnownChip>& known_chips() {
  static const std::vector<KnownChip> chips = {
      chip("v100-sxm2", "Tesla V100 SXM2", 80, 128, 96, 6, 7, 0,
           "NVIDIA Tesla V100 GPU Architecture whitepaper (2017)"),
      chip("t4", "Tesla T4", 40, 96, 64, 4, 7, 5, "NVIDIA Turing GPU Architecture whitepaper (2018); T4 datasheet"),
      chip("a100-sxm4", "A100 SXM4", 108, 192, 164, 40, 8, 0,
           "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), table 1"),
      chip("a10", "A10", 72, 128, 100, 6, 8, 6,
           "NVIDIA Ampere GA102 GPU Architecture whitepaper (2021); A10 datasheet"),
      chip("a40", "A40", 84, 128, 100, 6, 8, 6,
           "NVIDIA Ampere GA102 GPU Architecture whitepaper (2021); A40 datasheet"),
      chip("rtx3090", "GeForce RTX 3090", 82, 128, 100, 6, 8, 6,
           "NVIDIA Ampere GA102 GPU Architecture whitepaper (2021), RTX 3090 column"),
      chip("l4", "L4", 58, 128, 100, 48, 8, 9, "NVIDIA Ada GPU Architecture whitepaper (2023); L4 datasheet"),
      chip("l40s", "L40S", 142, 128, 100, 96, 8, 9, "NVIDIA Ada GPU Architecture whitepaper (2023); L40S datasheet"),
      chip("rtx4090", "GeForce RTX 4090", 128, 128, 100, 72, 8, 9,
           "NVIDIA Ada GPU Architecture whitepaper (2023), RTX 4090 column"),
      chip("h100-pcie", "H100 PCIe", 114, 256, 228, 50, 9, 0,
           "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), table 3"),
      chip("h100-sxm5", "H100 SXM5", 132, 256, 228, 50, 9, 0,
           "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), table 3; device attributes of our H100 80GB "
           "HBM3"),
      chip("h100-nvl", "H100 NVL", 132, 256, 228, 50, 9, 0, "NVIDIA H100 NVL datasheet (2023)"),
      chip("h200", "H200", 132, 256, 228, 60, 9, 0, "NVIDIA H200 datasheet (2024); device attributes of our H200"),
      chip("gh200", "GH200 (Hopper GPU)", 132, 256, 228, 60, 9, 0,
           "NVIDIA Grace Hopper Superchip Architecture whitepaper (2023)"),
      chip("b200", "B200", 148, 256, 228, 126, 10, 0,
           "NVIDIA Blackwell datasheet (2024) for the SM count; L2 as CUDA reports it on B200 systems (126 MB)"),
      chip("rtx5090", "GeForce RTX 5090", 170, 128, 100, 96, 12, 0,
           "NVIDIA RTX Blackwell GPU Architecture whitepaper (2025), RTX 5090 column"),
  };
  return chips;
}

const KnownChip* find_known_chip(const std::string& key) {
  for (const KnownChip& chip : known_chips())
    if (chip.key == key) return &chip;
  return nullptr;
}

}  // namespace gpubench
