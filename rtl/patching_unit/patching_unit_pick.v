// patching_unit_pick: lowest-index pick of a request vector, built as a tree
// of 4-input fixed-priority arbiters (GR-Guard patching selection, §6.3.2:
// "tree of 4-input arbiters + priority encoder").
//
// Ports:
//   req_i    one request bit per candidate (N >= 2)
//   found_o  some request bit is set
//   idx_o    index of the lowest set bit (0 when found_o is 0)
// Timing: purely combinational.
// Choices: the tree is a heap of 4-ary nodes (node n has children 4n+1..4n+4);
// leaves past N are padded with 0. Requests OR up the tree; the grant walks
// down, taking the lowest requesting child at each level, so the index is
// the lowest set bit.
module patching_unit_pick #(
  parameter integer N    = 1024,
  parameter integer IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  wire [N-1:0]    req_i,
  output wire            found_o,
  output wire [IdxW-1:0] idx_o
);
  // Levels of 4-ary nodes needed to cover N leaves.
  function integer levels4(input integer n);
    integer l, c;
    begin
      l = 0;
      c = 1;
      while (c < n) begin
        c = c * 4;
        l = l + 1;
      end
      levels4 = l;
    end
  endfunction

  localparam integer Levels = levels4(N);
  localparam integer Leaves = 1 << (2 * Levels);
  localparam integer Inner  = (Leaves - 1) / 3;  // nodes above the leaves
  localparam integer Nodes  = Inner + Leaves;
  localparam integer LW     = 2 * Levels;  // leaf index width (N >= 2)

  // Request-up: node n is set if any leaf below it requests, evaluated
  // leaves first in one loop. Grant-down: from the root, each level's
  // 4-input fixed-priority arbiter picks the lowest requesting child; the
  // picks, top first, are the index bits (the priority encoder).
  reg [Nodes-1:0] node_v;
  reg [LW-1:0]    path, selw;
  reg [2:0]       cv;  // a 4th child wins when the first three do not request
  integer n, l, at, s;
  always @(*) begin
    for (n = 0; n < Leaves; n = n + 1)
      node_v[Inner + n] = (n < N) ? req_i[n % N] : 1'b0;
    for (n = Inner - 1; n >= 0; n = n - 1)
      node_v[n] = |node_v[4*n+1 +: 4];
    path = {LW{1'b0}};
    at = 0;
    for (l = 0; l < Levels; l = l + 1) begin
      cv = node_v[4*at+1 +: 3];
      s  = cv[0] ? 0 : cv[1] ? 1 : cv[2] ? 2 : 3;
      selw = {LW{1'b0}};
      selw[1:0] = s[1:0];
      path = (path << 2) | selw;
      at = 4*at + 1 + s;
    end
  end

  assign found_o = node_v[0];
  // Indices past N never win (their leaves are 0), so truncation is exact;
  // zero when nothing is found keeps the output defined for the lockstep.
  wire [LW-1:0] root_i = found_o ? path : {LW{1'b0}};
  generate
    if (LW >= IdxW) begin : g_trunc
      assign idx_o = root_i[IdxW-1:0];
      if (LW > IdxW) begin : g_unused
        wire unused_hi = |root_i[LW-1:IdxW];
      end
    end else begin : g_ext
      assign idx_o = {{(IdxW-LW){1'b0}}, root_i};
    end
  endgenerate
endmodule
