<%doc>
  A barrier over every work-group of a launch, for kernels that run many steps in one launch
  (ptg's top_down_grid, the auction's auction_grid). The host launches at most one group
  per compute unit, on devices where that is known to run them all at once
  (pyclmatch.engine.grid). Template value: ptx_fence (NVIDIA's driver: the device-wide
  fence as inline PTX).
</%doc>
/* A barrier over every work-group of a launch, as CUDA's grid synchronisation: after a
   group barrier, one work-item fences the group's writes device-wide, adds one to the
   arrival count *bar, waits until `target` groups have arrived (the count only grows: the
   i-th barrier waits for i * groups) and fences again. Sound only while every group of the
   launch runs at once; a wait longer than spin_limit polls gives up: returns 0, and the
   host falls back. Every work-item of the group must call it (barriers). The arrays other
   groups write during the launch must be read volatile (not from a compute unit's stale
   cache). */
% if context.get('ptx_fence', False):
/* a device-wide fence: OpenCL 1.2's mem_fence compiles to a CTA-wide one (membar.cta) on
   NVIDIA's driver; inline PTX gives the fence CUDA's grid synchronisation uses */
#define DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
% else:
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
% endif
inline int grid_barrier(volatile __global int *bar, int target, int spin_limit,
                        volatile __local int *ok)
{
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        DEVICE_FENCE();             /* (the group's writes, before its arrival) */
        atomic_inc(bar);
        int spins = 0;
        while (*bar < target && spins < spin_limit) ++spins;
        *ok = *bar >= target;
        DEVICE_FENCE();             /* (the other groups' writes, after theirs) */
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *ok;
}
