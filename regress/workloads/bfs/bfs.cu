// One level of a level-synchronous breadth-first search over a CSR graph
// (irregular and divergent). Each thread owns a vertex; vertices in the
// current frontier visit their out-edges and claim unvisited neighbours for
// the next level. The host launches once per level until nothing changes.
//
// Several frontier vertices may claim the same neighbour in one level; they
// all write the same depth, so the race is benign and the levels are exact.

extern "C" __global__ void bfs_level(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                     unsigned char* frontier, unsigned char* next, int* level,
                                     int n, int depth, int* changed)
{
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v])
        return;
    frontier[v] = 0;  // cleared here so the host can reuse this buffer as the next `next`
    const int end = row_ptr[v + 1];
    for (int e = row_ptr[v]; e < end; ++e) {
        const int u = col_idx[e];
        if (level[u] < 0) {
            level[u] = depth + 1;
            next[u] = 1;
            *changed = 1;
        }
    }
}
