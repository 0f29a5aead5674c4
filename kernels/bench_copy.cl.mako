<%include file="common.cl.mako"/>
// Bandwidth probe for `pyclmatch bench` (not from a paper): dst[i] = src[i], strided over a
// constant grid, 16-byte elements; bytes moved = 2 * n * 16.
__kernel void bench_copy(__global const int4 *src, __global int4 *dst, const long n)
{
    for (long i = get_global_id(0); i < n; i += get_global_size(0))
        dst[i] = src[i];
}
