// The kernels whose timed loops test/audit/loop_audit.py checks, compiled to PTX for the audit that
// runs everywhere (the SASS audit reads the gpubench binary itself).
#include "kernels/compute/instruction_chains.cuh"
#include "kernels/compute/register_banks.cuh"
#include "kernels/memory/pointer_chase.cuh"

namespace gpubench::audit {

using kernels::LoadPath;

// Taking their addresses instantiates the templates, so their PTX is emitted (external linkage keeps
// the table, and so the kernels, in the translation unit).
extern const void* const kAudited[];
const void* const kAudited[] = {
    reinterpret_cast<const void*>(&kernels::pointer_chase_direct<LoadPath::kCached>),
    reinterpret_cast<const void*>(&kernels::pointer_chase_direct<LoadPath::kL2Only>),
    reinterpret_cast<const void*>(&kernels::pointer_chase_shared_direct),
    reinterpret_cast<const void*>(
        &kernels::pointer_chase<LoadPath::kCached>),  // indexed: the audit must reject it as direct
    reinterpret_cast<const void*>(&kernels::instruction_latency<kernels::Ffma>),
    reinterpret_cast<const void*>(&kernels::instruction_latency<kernels::Dfma>),
    reinterpret_cast<const void*>(&kernels::ffma_register_banks<0, 0, 0>),
    reinterpret_cast<const void*>(&kernels::ffma_register_banks<0, 2, 0>),
    reinterpret_cast<const void*>(&kernels::ffma_register_banks<0, 1, 2>),
};

}  // namespace gpubench::audit
