// patching_unit_pick: lowest-index pick of a request vector, built as a tree
// of 4-input fixed-priority arbiters (GR-Guard patching selection, §6.3.2:
// "tree of 4-input arbiters + priority encoder").
//
// Ports:
//   req_i    one request bit per candidate (N >= 2)
//   found_o  some request bit is set
//   idx_o    index of the lowest set bit (0 when found_o is 0)
// Timing: purely combinational.
// Choices: the tree is a complete 4-ary tree (node i of a level has children
// 4i..4i+3 on the next); leaves past N are padded with 0. Requests OR up the
// tree; the grant walks down, taking the lowest requesting child at each
// level, so the index is the lowest set bit.
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
  localparam integer LW     = 2 * Levels;  // leaf index width (N >= 2)

  // Request-up: level L (root = level 0) has 4^L nodes; node i of level L
  // is the OR of nodes 4i..4i+3 of level L+1; level Levels are the leaves,
  // padded with 0 past N. Grant-down: from the root, each level's 4-input
  // fixed-priority arbiter picks the lowest requesting child of the node
  // picked above; the picks, top first, are the index bits (the priority
  // encoder). Written as one generate block per node and per level (not as
  // loops over one vector) so that Verilator evaluates it in straight-line
  // code: relgpu run --rtl evaluates this every SM cycle.
  genvar gl, gi;
  generate
    for (gl = 0; gl <= Levels; gl = gl + 1) begin : g_lvl
      wire [(1 << (2 * gl))-1:0] v;
      if (gl == Levels) begin : g_leaves
        if (Leaves > N) begin : g_pad
          assign v = {{(Leaves - N){1'b0}}, req_i};
        end else begin : g_full
          assign v = req_i;
        end
      end else begin : g_or
        for (gi = 0; gi < (1 << (2 * gl)); gi = gi + 1) begin : g_node
          assign v[gi] = |g_lvl[gl+1].v[4*gi +: 4];
        end
      end
    end
    for (gl = 0; gl < Levels; gl = gl + 1) begin : g_down
      wire [2*gl+1:0] at_out;  // the picked node of level gl+1 (picks, top first)
      wire [2:0]      cv;      // requests of its first three siblings; the 4th wins when none
      wire [1:0]      s;
      if (gl == 0) begin : g_root
        assign cv = g_lvl[1].v[2:0];
        assign at_out = s;
      end else begin : g_inner
        assign cv = g_lvl[gl+1].v[{g_down[gl-1].at_out, 2'b00} +: 3];
        assign at_out = {g_down[gl-1].at_out, s};
      end
      assign s = cv[0] ? 2'd0 : cv[1] ? 2'd1 : cv[2] ? 2'd2 : 2'd3;
    end
  endgenerate
  wire [LW-1:0] path = g_down[Levels-1].at_out;

  assign found_o = g_lvl[0].v[0];
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
