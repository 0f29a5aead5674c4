<%doc>
  Shared pieces of every pyclmatch kernel (OpenCL C 1.2, no vendor extensions).
  Template values used here:
    index_t   vertex-id type ("int")
    offset_t  edge-offset type ("int", or "long" above 2**31-1 edges)
    mode      "ct": constant grid, each work-item strides over several vertices (coalesced);
              "mt": one vertex per work-item (the grid covers all vertices)
</%doc>
typedef ${index_t} index_t;
typedef ${offset_t} offset_t;

/* FOR_EACH_VERTEX(v, n): the vertices a work-item owns. In CT mode work-item tid handles
   tid, tid + T, tid + 2T, ... (T = total work-items), which is getProcessCount() of paper 000
   with strided, coalesced accesses; in MT mode each work-item owns at most one vertex. */
% if mode == "ct":
#define FOR_EACH_VERTEX(v, n) \
    for (index_t v = (index_t)get_global_id(0); v < (n); v += (index_t)get_global_size(0))
% else:
#define FOR_EACH_VERTEX(v, n) \
    for (index_t v = (index_t)get_global_id(0); v < (n); v = (n))
% endif
