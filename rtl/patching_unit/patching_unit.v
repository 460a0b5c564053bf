// patching_unit: GR-Guard fault-patching unit of an undervolted register file
// (Tan dissertation §6.3.2-6.3.4; spec digest 000 §4 and §7a). One per SM,
// between the operand-collector arbitrator and the RF banks.
//
// Terms. The RF has Banks banks x Rows rows of 128-bit entries. A WRG (warp
// register group) is the Rows-aligned row of GroupBanks consecutive banks:
// WRG id = {group, row}, group = bank / GroupBanks. Entry i of a WRG lives in
// bank group*GroupBanks + i. A WRG is patched as a whole: entry i may only
// move to entry i of the patching WRG, or to an L1D spill line.
//
// State:
//   dead_mem_q   [NumWrg]     Dead map (all-dead at reset and kernel start)
//   patch_mem_q  [NumWrg]     Patch map (WRG serves as a patch; "occupied")
//   ivalid_mem_q [NumWrg]     Index valid bit (inferred, digest choice 1)
//   index_mem_q  [NumWrg]     Index map {spill, whole, target}; no reset (RAM)
//   faulty_mem_q [GroupBanks] Faulty map by entry column: bit w of column i
//                             = entry i of WRG w is faulty; no reset, loaded
//                             by the fm_* port from the test ROM
//   spill_mem_q  [L1Lines]    L1D reserved-way lines in use
//
// Ports (one read and one write port per bank group: an access to a
// register vector touches the same row of all GroupBanks banks of its group,
// and each bank has 1R+1W):
//   kernel_start_i          clears Dead/Patch/Index valid/spill; the other
//                           requests of that cycle are ignored (outputs 0)
//   fm_we_i/fm_wrg_i/fm_data_i  Faulty map write (bit i = entry i faulty)
//   rd_valid_i[g], rd_row_i[g]  read of WRG {g, row}
//   rd_dead_i[g], rd_div_i[g]   compiler dead bit, divergent instruction
//   wr_valid_i[g], wr_row_i[g], wr_div_i[g]  write of WRG {g, row}
//   rd_kind_o/wr_kind_o[g]  0 normal, 1 same-group patch (+1 cycle),
//                           2 cross-group (re-arbitrate), 3 L1D spill
//   rd_mask_o/wr_mask_o[g]  entries that go to the patch (0 when normal)
//   rd_tgt_o/wr_tgt_o[g]    patch WRG id, or L1D spill line (0 when normal)
//   wr_retry_o[g]           write not accepted this cycle; the collector
//                           retries it (no state changed for it)
//   spill_active_o          the reserved L1D way is in use
// Timing: all outputs are combinational (Mealy) on the current maps; the
// lookup adds no cycle. Selection is combinational in the write's cycle and
// its map updates commit at the clock edge; the patched entries are written
// one cycle later (kind 1), after re-arbitration (2) or to the L1D (3).
//
// Choices where the paper is silent (digest §7a numbering):
//  1. Redirect from the Index valid bit, not from Faulty/Patch: a read or
//     write of WRG w is redirected iff ivalid[w]; the moved entries are all
//     GroupBanks if the index is "whole", else the Faulty entries of w.
//     A WRG whose index is valid keeps redirecting after its own Patch bit
//     is released (no data is lost).
//  2. A write to an occupied WRG (Patch=1) moves all entries ("whole").
//  3. A divergent write to a WRG with a valid index keeps the existing patch
//     (inactive lanes live there). A non-divergent write releases the old
//     patch and selects anew; a write needing no patch only releases.
//  4. One selection per cycle: the lowest-numbered write port that needs one
//     wins; the others get wr_retry_o.
//  5. Candidates: dead, not a patch, good in every needed entry, and not
//     written this cycle by any port. Order: same group first, then the
//     next groups in cyclic order, lowest row first inside a group (a
//     rotation of the candidate vector feeding one 4-ary arbiter tree);
//     then the lowest free spill line; if the spill way is full, retry.
//  6. Death = read with the dead bit of a non-divergent instruction: sets
//     Dead, releases the patch (Patch bit or spill line) and the index. It is
//     ignored if the same cycle writes that WRG (the write makes it live).
//  7. A write clears Dead. Kernel start clears Patch, Index valid and spill,
//     and sets all Dead; the Faulty map persists.
//  8. The selection reads the Faulty bits of all WRGs in parallel, so that
//     map is row-parallel (flops, kept as GroupBanks column vectors) in a
//     real design; Index is a plain 2R1W RAM per bank group.
//  9. An Index entry is TgtW+2 bits (12 at paper size: 10-bit target,
//     spill, whole) plus its valid bit; the paper's 11 bits lack "whole".
// 10. Outside the unit: which entries are faulty (the test ROM marks an
//     entry with 2+ bad bits; SEC-DED covers 1), and the spill access
//     latency (an L1D access by the collector).
// Mutant (RELGPU_MUTANT): the candidate filter ignores the Patch map, so an
// occupied WRG can be chosen as a patch twice.
module patching_unit #(
  parameter integer Banks      = 32,
  parameter integer Rows       = 256,
  parameter integer GroupBanks = 8,
  parameter integer L1Lines    = 32,
  // Derived; do not override.
  parameter integer Groups = Banks / GroupBanks,
  parameter integer RowW   = $clog2(Rows),
  parameter integer WrgW   = RowW + $clog2(Groups),
  parameter integer TgtW   = (WrgW > $clog2(L1Lines)) ? WrgW : $clog2(L1Lines)
) (
  input  wire                       clk_i,
  input  wire                       rst_ni,
  input  wire                       kernel_start_i,
  input  wire                       fm_we_i,
  input  wire [WrgW-1:0]            fm_wrg_i,
  input  wire [GroupBanks-1:0]      fm_data_i,
  input  wire [Groups-1:0]          rd_valid_i,
  input  wire [Groups*RowW-1:0]     rd_row_i,
  input  wire [Groups-1:0]          rd_dead_i,
  input  wire [Groups-1:0]          rd_div_i,
  input  wire [Groups-1:0]          wr_valid_i,
  input  wire [Groups*RowW-1:0]     wr_row_i,
  input  wire [Groups-1:0]          wr_div_i,
  output reg  [Groups*2-1:0]        rd_kind_o,
  output reg  [Groups*GroupBanks-1:0] rd_mask_o,
  output reg  [Groups*TgtW-1:0]     rd_tgt_o,
  output reg  [Groups-1:0]          wr_retry_o,
  output reg  [Groups*2-1:0]        wr_kind_o,
  output reg  [Groups*GroupBanks-1:0] wr_mask_o,
  output reg  [Groups*TgtW-1:0]     wr_tgt_o,
  output wire                       spill_active_o
);
  localparam integer NumWrg = Groups * Rows;
  localparam integer GrpW   = WrgW - RowW;
  localparam integer LineW  = (L1Lines > 1) ? $clog2(L1Lines) : 1;
  localparam integer IdxDW  = TgtW + 2;  // {spill, whole, target}
  localparam [1:0] KSame = 2'd1, KCross = 2'd2, KSpill = 2'd3;  // 0 = normal

  reg [GroupBanks*NumWrg-1:0] faulty_mem_q;
  reg [IdxDW-1:0]      index_mem_q  [0:NumWrg-1];
  reg [NumWrg-1:0]     dead_mem_q, patch_mem_q, ivalid_mem_q;
  reg [NumWrg-1:0]     dead_d, patch_d, ivalid_d;
  reg [L1Lines-1:0]    spill_mem_q, spill_d;

  wire active = ~kernel_start_i;

  // ---- per-port map lookups ----
  wire [Groups*WrgW-1:0]       rw, ww;
  wire [Groups*GroupBanks-1:0] rf, wf;
  wire [Groups*IdxDW-1:0]      ri, wi;
  wire [Groups-1:0]            rv, wv, wp;
  genvar g, b;
  generate
    for (g = 0; g < Groups; g = g + 1) begin : g_port
      localparam [GrpW-1:0] G = g;
      assign rw[g*WrgW +: WrgW] = {G, rd_row_i[g*RowW +: RowW]};
      assign ww[g*WrgW +: WrgW] = {G, wr_row_i[g*RowW +: RowW]};
      for (b = 0; b < GroupBanks; b = b + 1) begin : g_col
        // Slice the column first: a select into one NumWrg-bit column, not
        // into the whole map (Yosys maps an 8,192-bit $shiftx very slowly).
        wire [NumWrg-1:0] col = faulty_mem_q[b*NumWrg +: NumWrg];
        assign rf[g*GroupBanks + b] = col[rw[g*WrgW +: WrgW]];
        assign wf[g*GroupBanks + b] = col[ww[g*WrgW +: WrgW]];
      end
      assign ri[g*IdxDW +: IdxDW] = index_mem_q[rw[g*WrgW +: WrgW]];
      assign wi[g*IdxDW +: IdxDW] = index_mem_q[ww[g*WrgW +: WrgW]];
      assign rv[g] = ivalid_mem_q[rw[g*WrgW +: WrgW]];
      assign wv[g] = ivalid_mem_q[ww[g*WrgW +: WrgW]];
      assign wp[g] = patch_mem_q[ww[g*WrgW +: WrgW]];
    end
  endgenerate

  // ---- which write port selects this cycle, and what it needs ----
  reg [Groups-1:0]     wkeep, wsel;  // keep existing patch / needs selection
  reg [GroupBanks-1:0] sel_need;
  reg [GrpW-1:0]       sel_grp;
  reg                  sel_any, sel_whole;
  integer p;
  always @(*) begin
    sel_need = {GroupBanks{1'b0}};
    sel_grp  = {GrpW{1'b0}};
    sel_any  = 1'b0;
    sel_whole = 1'b0;
    for (p = 0; p < Groups; p = p + 1) begin
      wkeep[p] = active & wr_valid_i[p] & wv[p] & wr_div_i[p];
      wsel[p]  = active & wr_valid_i[p] & ~wkeep[p] &
                 (wp[p] | (|wf[p*GroupBanks +: GroupBanks]));
    end
    for (p = Groups - 1; p >= 0; p = p - 1) begin
      if (wsel[p]) begin
        sel_any  = 1'b1;
        sel_whole = wp[p];
        sel_grp  = ww[p*WrgW + RowW +: GrpW];
        sel_need = wp[p] ? {GroupBanks{1'b1}} : wf[p*GroupBanks +: GroupBanks];
      end
    end
  end

  // ---- candidate vector, rotated so that group sel_grp comes first ----
  // Whole-vector operations on the Faulty columns: compact in simulation.
  reg  [NumWrg-1:0] cand, written, bad;
  wire [NumWrg-1:0] rot;
  integer k;
  always @(*) begin
    written = {NumWrg{1'b0}};
    for (k = 0; k < Groups; k = k + 1)
      if (wr_valid_i[k]) written = written | ({{(NumWrg-1){1'b0}}, 1'b1} << ww[k*WrgW +: WrgW]);
    bad = {NumWrg{1'b0}};
    for (k = 0; k < GroupBanks; k = k + 1)
      if (sel_need[k]) bad = bad | faulty_mem_q[k*NumWrg +: NumWrg];
`ifdef RELGPU_MUTANT
    cand = dead_mem_q & ~written & ~bad;
`else
    cand = dead_mem_q & ~patch_mem_q & ~written & ~bad;
`endif
  end
  generate
    for (g = 0; g < Groups; g = g + 1) begin : g_rot
      localparam [GrpW-1:0] G = g;
      wire [GrpW-1:0] src = sel_grp + G;
      assign rot[g*Rows +: Rows] = cand[src*Rows +: Rows];
    end
  endgenerate

  wire             pick_found;
  wire [WrgW-1:0]  pick_rot;
  wire             line_found;
  wire [LineW-1:0] line_idx;
  patching_unit_pick #(.N(NumWrg), .IdxW(WrgW)) u_pick_wrg (
    .req_i(rot), .found_o(pick_found), .idx_o(pick_rot));
  patching_unit_pick #(.N(L1Lines), .IdxW(LineW)) u_pick_line (
    .req_i(~spill_mem_q), .found_o(line_found), .idx_o(line_idx));

  // Un-rotate: the picked group is counted from sel_grp.
  wire [GrpW-1:0] pick_grp = pick_rot[WrgW-1:RowW] + sel_grp;
  wire [WrgW-1:0] pick_wrg = {pick_grp, pick_rot[RowW-1:0]};
  wire sel_ok    = sel_any & (pick_found | line_found);
  wire sel_spill = ~pick_found;
  wire [TgtW-1:0] sel_tgt = pick_found ? {{(TgtW-WrgW){1'b0}}, pick_wrg}
                                       : {{(TgtW-LineW){1'b0}}, line_idx};

  // ---- outputs and next state ----
  // Index entry e = {spill e[TgtW+1], whole e[TgtW], target e[TgtW-1:0]}.
  reg [IdxDW-1:0]      e;
  reg [GroupBanks-1:0] m;
  reg [WrgW-1:0]       w;
  reg [GrpW-1:0]       pg;
  reg                  dies, taken;
  integer q, t;
  always @(*) begin
    dead_d   = dead_mem_q;
    patch_d  = patch_mem_q;
    ivalid_d = ivalid_mem_q;
    spill_d  = spill_mem_q;
    rd_kind_o = {Groups*2{1'b0}};
    rd_mask_o = {Groups*GroupBanks{1'b0}};
    rd_tgt_o  = {Groups*TgtW{1'b0}};
    wr_kind_o = {Groups*2{1'b0}};
    wr_mask_o = {Groups*GroupBanks{1'b0}};
    wr_tgt_o  = {Groups*TgtW{1'b0}};
    wr_retry_o = {Groups{1'b0}};
    taken = 1'b0;
    for (q = 0; q < Groups; q = q + 1) begin
      pg = q[GrpW-1:0];
      // Read port: redirect, then death and release.
      e = ri[q*IdxDW +: IdxDW];
      w = rw[q*WrgW +: WrgW];
      m = e[TgtW] ? {GroupBanks{1'b1}} : rf[q*GroupBanks +: GroupBanks];
      if (active & rd_valid_i[q] & rv[q]) begin
        rd_mask_o[q*GroupBanks +: GroupBanks] = m;
        rd_tgt_o[q*TgtW +: TgtW] = e[TgtW-1:0];
        rd_kind_o[q*2 +: 2] = e[TgtW+1] ? KSpill : (e[WrgW-1:RowW] == pg) ? KSame : KCross;
      end
      dies = active & rd_valid_i[q] & rd_dead_i[q] & ~rd_div_i[q] &
             ~(wr_valid_i[q] & (wr_row_i[q*RowW +: RowW] == rd_row_i[q*RowW +: RowW]));
      if (dies) begin
        dead_d[w] = 1'b1;
        if (rv[q]) begin
          ivalid_d[w] = 1'b0;
          if (e[TgtW+1]) spill_d[e[LineW-1:0]] = 1'b0;
          else patch_d[e[WrgW-1:0]] = 1'b0;
        end
      end
    end
    for (q = 0; q < Groups; q = q + 1) begin
      pg = q[GrpW-1:0];
      // Write port.
      e = wi[q*IdxDW +: IdxDW];
      w = ww[q*WrgW +: WrgW];
      if (wkeep[q]) begin
        wr_mask_o[q*GroupBanks +: GroupBanks] =
            e[TgtW] ? {GroupBanks{1'b1}} : wf[q*GroupBanks +: GroupBanks];
        wr_tgt_o[q*TgtW +: TgtW] = e[TgtW-1:0];
        wr_kind_o[q*2 +: 2] = e[TgtW+1] ? KSpill : (e[WrgW-1:RowW] == pg) ? KSame : KCross;
        dead_d[w] = 1'b0;
      end else if (active & wr_valid_i[q] & ~wsel[q]) begin
        dead_d[w] = 1'b0;
        if (wv[q]) begin  // re-write with no patch needed: release
          ivalid_d[w] = 1'b0;
          if (e[TgtW+1]) spill_d[e[LineW-1:0]] = 1'b0;
          else patch_d[e[WrgW-1:0]] = 1'b0;
        end
      end else if (wsel[q]) begin
        if (taken | ~sel_ok) begin
          wr_retry_o[q] = 1'b1;
        end else begin
          taken = 1'b1;
          dead_d[w] = 1'b0;
          if (wv[q]) begin  // release the old patch before taking the new one
            if (e[TgtW+1]) spill_d[e[LineW-1:0]] = 1'b0;
            else patch_d[e[WrgW-1:0]] = 1'b0;
          end
          ivalid_d[w] = 1'b1;
          wr_mask_o[q*GroupBanks +: GroupBanks] = sel_need;
          wr_tgt_o[q*TgtW +: TgtW] = sel_tgt;
          wr_kind_o[q*2 +: 2] = sel_spill ? KSpill : (pick_grp == pg) ? KSame : KCross;
        end
      end
    end
    // New patch last: it was free before this cycle, so no release above
    // can touch it.
    if (taken) begin
      if (sel_spill) spill_d[line_idx] = 1'b1;
      else patch_d[pick_wrg] = 1'b1;
    end
  end

  // The selecting port is the lowest with wsel, which is the port that set
  // `taken`; its WRG gets the new index entry.
  reg [WrgW-1:0] sel_wrg;
  always @(*) begin
    sel_wrg = {WrgW{1'b0}};
    for (t = Groups - 1; t >= 0; t = t - 1)
      if (wsel[t]) sel_wrg = ww[t*WrgW +: WrgW];
  end
  wire [IdxDW-1:0] sel_entry = {sel_spill, sel_whole, sel_tgt};

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dead_mem_q   <= {NumWrg{1'b1}};
      patch_mem_q  <= {NumWrg{1'b0}};
      ivalid_mem_q <= {NumWrg{1'b0}};
      spill_mem_q  <= {L1Lines{1'b0}};
    end else if (kernel_start_i) begin
      dead_mem_q   <= {NumWrg{1'b1}};
      patch_mem_q  <= {NumWrg{1'b0}};
      ivalid_mem_q <= {NumWrg{1'b0}};
      spill_mem_q  <= {L1Lines{1'b0}};
    end else begin
      dead_mem_q   <= dead_d;
      patch_mem_q  <= patch_d;
      ivalid_mem_q <= ivalid_d;
      spill_mem_q  <= spill_d;
    end
  end

  // RAM-style arrays: no reset. The Faulty write is one decoded row select
  // shared by all columns (as in a row-parallel array).
  wire [NumWrg-1:0] fm_row = {{(NumWrg-1){1'b0}}, 1'b1} << fm_wrg_i;
  integer k2;
  always @(posedge clk_i) begin
    if (fm_we_i)
      for (k2 = 0; k2 < GroupBanks; k2 = k2 + 1)
        faulty_mem_q[k2*NumWrg +: NumWrg] <= (faulty_mem_q[k2*NumWrg +: NumWrg] & ~fm_row) |
                                             (fm_row & {NumWrg{fm_data_i[k2]}});
    if (taken) index_mem_q[sel_wrg] <= sel_entry;
  end

  assign spill_active_o = |spill_mem_q;
endmodule
