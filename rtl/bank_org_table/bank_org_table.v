// bank_org_table: RF bank organization table (BOT) with the block-level
// renaming table (RT), one per SM (Tan et al., TPDS 2016, spec 002 §2, §5,
// §6 and §12).
//
// Terms. The RF has NumVbs banks, each cut into 2 sub-banks (sb) of half the
// lanes: NumSbs = 2*NumVbs sbs. A virtual bank (vb) pairs 2 sbs. BOT[vb] =
// {spdB, spdA, sbB, sbA} (sbA serves lanes 0-15, sbB lanes 16-31; spd=1 is
// a 2-cycle sb). RT[slot][bank] = vb renames the Eq.(3) bank of a block.
// Translation: bank -> RT[slot][bank] -> BOT[vb] -> {sbA, sbB, spdA, spdB}.
//
// Ports:
//   we_i, widx_i, wdata_i   BOT write (power-on copy of the test-time ROM);
//                           wdata = {spdB, spdA, sbB, sbA}; ignored while busy
//   reorg_i                 kernel launch (SM drained): re-organize the BOT
//   sensors_i[NumSbs]       sensor delay codes, larger = slower; sampled
//   slow_thr_i              with reorg_i; code > slow_thr_i marks an sb slow
//   nslow_min_i             with reorg_i; the last nslow_min_i sbs in sort
//                           order are slow whatever their codes (by rank:
//                           ties at the threshold code cannot add fast sbs)
//   nhyb_i                  hybrid banks requested, 0..NumVbs (the driver
//                           passes NumVbs when warps have <=16 active lanes)
//   reorg_busy_o            re-organization in progress
//   disp_i, disp_slot_i     block dispatch into slot: fill RT[slot]
//   disp_warp_i             last warp of the block, mod NumVbs
//   lk_valid_i/lk_slot_i/lk_bank_i/lk_act_i   N lookups (32-lane mask each)
//   lk_vb_o/lk_sba_o/lk_sbb_o/lk_spd_o/lk_busy_o  translation results;
//                           busy = valid & ((spdA & |act[15:0]) |
//                                           (spdB & |act[31:16]))
//   stall_o[vb]             a busy access started on vb last cycle: the
//                           arbiter holds the next access to it (2nd cycle)
//   fw_slot_i/fw_bank_i -> fw_fast_o   FWAS port: fast = ~(spdA & spdB)
//   nfast_o                 number of fast vbs (hybrid counts as fast)
// Timing: lookups, FWAS and nfast_o are combinational. Writes, RT fills
// and stall_o land at the clock edge. Re-organization latency: reorg_i in
// cycle t (idle), busy in t+1 .. t+NumSbs+1, the new table is seen from
// cycle t+NumSbs+2 (34 cycles at 32 sbs).
//
// Re-organization (sequential sorter FSM):
//   SORT, NumSbs cycles: each cycle picks the fastest sb not yet taken
//     (lowest code, ties to the lower sb id) with a comparator tree, slow
//     if its code is above slow_thr_i or it is among the last nslow_min_i
//     picks; every
//     second pick writes BOT[k] = {pick 2k, pick 2k+1}, so the BOT is sorted
//     fastest first and fast pairs come first (vb0.. fast, then slow).
//   SWAP, 1 cycle: hybrid banks. With nf fast sbs, vbs 0..F-1 are pure fast
//     (F = nf/2), vb F is a natural hybrid if nf is odd, vbs C.. are pure
//     slow (C = ceil(nf/2)). n = min(nhyb/2, F, NumVbs-C) swaps pair the
//     slowest fast vbs with the fastest slow vbs: vb F-1-i with vb C+i
//     trades its sbB for the other's sbA, giving 2 hybrids with the fast sb
//     in slot A. Odd nhyb rounds down.
// Block dispatch: fast(v) = ~(spdA & spdB); NF = number of fast vbs; banks
//   0..NF-1 are the fast category. For r = 0..NumVbs-1, bank b =
//   (disp_warp_i + r) % NumVbs takes the next unused vb of its category in
//   vb order (the BOT is sorted by speed, so vb order is speed order).
// Choices where the paper is silent: sensor codes as delays and a threshold
// input for slow (so "all sbs slow" is possible); BOT and RT are flops with
// reset (BOT[v] = {2v, 2v+1, fast}, RT rows = identity) so that lookups
// before the ROM copy or a dispatch are defined; "current speed" at dispatch
// is the vb order of the BOT.
// Mutant (RELGPU_MUTANT): sensor ties go to the higher sb id.
module bank_org_table #(
  parameter integer NumVbs     = 16,
  parameter integer NumSlots   = 8,
  parameter integer CodeWidth  = 8,
  parameter integer NumLookups = 4,
  parameter integer NumFwas    = 2,
  // Derived; do not override.
  parameter integer NumSbs = 2 * NumVbs,
  parameter integer VbW    = $clog2(NumVbs),
  parameter integer SbW    = VbW + 1,
  parameter integer SlotW  = $clog2(NumSlots),
  parameter integer EntW   = 2 * SbW + 2
) (
  input  wire                        clk_i,
  input  wire                        rst_ni,
  input  wire                        we_i,
  input  wire [VbW-1:0]              widx_i,
  input  wire [EntW-1:0]             wdata_i,
  input  wire                        reorg_i,
  input  wire [NumSbs*CodeWidth-1:0] sensors_i,
  input  wire [CodeWidth-1:0]        slow_thr_i,
  input  wire [SbW:0]                nslow_min_i,
  input  wire [VbW:0]                nhyb_i,
  output wire                        reorg_busy_o,
  input  wire                        disp_i,
  input  wire [SlotW-1:0]            disp_slot_i,
  input  wire [VbW-1:0]              disp_warp_i,
  input  wire [NumLookups-1:0]       lk_valid_i,
  input  wire [NumLookups*SlotW-1:0] lk_slot_i,
  input  wire [NumLookups*VbW-1:0]   lk_bank_i,
  input  wire [NumLookups*32-1:0]    lk_act_i,
  output reg  [NumLookups*VbW-1:0]   lk_vb_o,
  output reg  [NumLookups*SbW-1:0]   lk_sba_o,
  output reg  [NumLookups*SbW-1:0]   lk_sbb_o,
  output reg  [NumLookups*2-1:0]     lk_spd_o,
  output reg  [NumLookups-1:0]       lk_busy_o,
  output reg  [NumVbs-1:0]           stall_o,
  input  wire [NumFwas*SlotW-1:0]    fw_slot_i,
  input  wire [NumFwas*VbW-1:0]      fw_bank_i,
  output reg  [NumFwas-1:0]          fw_fast_o,
  output reg  [VbW:0]                nfast_o
);
  localparam integer RowW = NumVbs * VbW;  // one RT row
  localparam integer CntW = SbW + 1;       // 0..NumSbs
  localparam [1:0] SIdle = 2'd0, SSort = 2'd1, SSwap = 2'd2;
  localparam integer LastKi = NumSbs - 1;
  localparam [SbW-1:0] LastK = LastKi[SbW-1:0];
  localparam [SbW:0]   NumVbsC = NumVbs[SbW:0];
  localparam [SbW+1:0] NumSbsC = NumSbs[SbW+1:0];

  reg [NumVbs*EntW-1:0]    bot_mem_q, bot_d;
  reg [NumSlots*RowW-1:0]  rt_mem_q;
  reg [NumVbs-1:0]         stall_d;
  reg [1:0]                st_q, st_d;
  reg [SbW-1:0]            k_q, k_d;
  reg [NumSbs-1:0]         taken_q, taken_d;
  reg [NumSbs*CodeWidth-1:0] code_q;
  reg [CodeWidth-1:0]      thr_q;
  reg [SbW:0]              nslow_q;
  reg [VbW:0]              nhyb_q, nhyb_d;
  reg [SbW:0]              prev_q, prev_d;  // {slow, sb} of the first of a pair
  reg [CntW-1:0]           nf_q, nf_d;     // fast sbs picked so far

  assign reorg_busy_o = (st_q != SIdle);

  // ---- fast vbs and their count ----
  reg [NumVbs-1:0] fast;
  reg [VbW:0]      nfast;
  integer v;
  always @(*) begin
    nfast = {(VbW+1){1'b0}};
    for (v = 0; v < NumVbs; v = v + 1) begin
      fast[v] = ~(bot_mem_q[v*EntW + 2*SbW] & bot_mem_q[v*EntW + 2*SbW + 1]);
      nfast = nfast + {{VbW{1'b0}}, fast[v]};
    end
    nfast_o = nfast;
  end

  // ---- lookups, FWAS and stall ----
  integer i;
  reg [VbW-1:0]  lv;
  reg [EntW-1:0] le;
  reg [31:0]     act;
  always @(*) begin
    stall_d = {NumVbs{1'b0}};
    for (i = 0; i < NumLookups; i = i + 1) begin
      lv  = rt_mem_q[lk_slot_i[i*SlotW +: SlotW]*RowW + lk_bank_i[i*VbW +: VbW]*VbW +: VbW];
      le  = bot_mem_q[lv*EntW +: EntW];
      act = lk_act_i[i*32 +: 32];
      lk_vb_o[i*VbW +: VbW]  = lv;
      lk_sba_o[i*SbW +: SbW] = le[SbW-1:0];
      lk_sbb_o[i*SbW +: SbW] = le[2*SbW-1:SbW];
      lk_spd_o[i*2 +: 2]     = le[2*SbW +: 2];
      lk_busy_o[i] = lk_valid_i[i] & ((le[2*SbW] & |act[15:0]) | (le[2*SbW+1] & |act[31:16]));
      if (lk_busy_o[i]) stall_d[lv] = 1'b1;
    end
    for (i = 0; i < NumFwas; i = i + 1) begin
      lv = rt_mem_q[fw_slot_i[i*SlotW +: SlotW]*RowW + fw_bank_i[i*VbW +: VbW]*VbW +: VbW];
      fw_fast_o[i] = fast[lv];
    end
  end

  // ---- renaming-table fill at block dispatch ----
  // Closed form of the walk b = (w + r) % NumVbs, r = 0..NumVbs-1: the rank
  // of bank b among the banks of its category in walk order, then the vb of
  // that category with that rank (pos: each vb's rank inside its category).
  // Computed under disp_i only (row is 0 otherwise, and written only with
  // disp_i): a simulator evaluates a block whole, and dispatches are rare.
  reg [RowW-1:0]           row;
  reg [NumVbs*(VbW+1)-1:0] pos;  // fast (slow) vbs below v, if v is fast (slow)
  reg [VbW:0]              cnt, w1, b1, nslow, rank;
  reg                      bfast;
  integer bi, vi, vu;
  always @(*) begin
    row   = {RowW{1'b0}};
    pos   = {(NumVbs*(VbW+1)){1'b0}};
    cnt   = {(VbW+1){1'b0}};
    w1    = {1'b0, disp_warp_i};
    b1    = {(VbW+1){1'b0}};
    nslow = {(VbW+1){1'b0}};
    rank  = {(VbW+1){1'b0}};
    bfast = 1'b0;
    if (disp_i) begin
      for (vi = 0; vi < NumVbs; vi = vi + 1) begin
        cnt = {(VbW+1){1'b0}};
        for (vu = 0; vu < vi; vu = vu + 1) cnt = cnt + {{VbW{1'b0}}, fast[vu] == fast[vi]};
        pos[vi*(VbW+1) +: VbW+1] = cnt;
      end
      nslow = NumVbsC[VbW:0] - nfast;
      for (bi = 0; bi < NumVbs; bi = bi + 1) begin
        b1 = bi[VbW:0];
        bfast = b1 < nfast;
        if (bfast) rank = (w1 >= nfast) ? b1 : (b1 >= w1) ? b1 - w1 : b1 + nfast - w1;
        else rank = (w1 < nfast) ? b1 - nfast : (b1 >= w1) ? b1 - w1 : b1 + nslow - w1;
        for (vi = 0; vi < NumVbs; vi = vi + 1)
          if (fast[vi] == bfast && pos[vi*(VbW+1) +: VbW+1] == rank)
            row[bi*VbW +: VbW] = vi[VbW-1:0];
      end
    end
  end

  // ---- sorter pick: fastest untaken sb, ties to the lower id ----
  // A binary tournament over the sbs, evaluated leaves first in one loop;
  // the left child holds the lower ids and wins ties. Computed in SSort only
  // (pick and best are read nowhere else), for simulation speed as above.
  localparam integer TInner = NumSbs - 1;
  localparam integer TNodes = TInner + NumSbs;
  reg [TNodes-1:0]           tv;
  reg [TNodes*CodeWidth-1:0] tc;
  reg [TNodes*SbW-1:0]       ti;
  reg                        left;
  reg [SbW-1:0]              pick;
  reg [CodeWidth-1:0]        best;
  integer t;
  always @(*) begin
    tv   = {TNodes{1'b0}};
    tc   = {(TNodes*CodeWidth){1'b0}};
    ti   = {(TNodes*SbW){1'b0}};
    left = 1'b0;
    if (st_q == SSort) begin
      for (t = 0; t < NumSbs; t = t + 1) begin
        tv[TInner + t] = ~taken_q[t];
        tc[(TInner + t)*CodeWidth +: CodeWidth] = code_q[t*CodeWidth +: CodeWidth];
        ti[(TInner + t)*SbW +: SbW] = t[SbW-1:0];
      end
      for (t = TInner - 1; t >= 0; t = t - 1) begin
`ifdef RELGPU_MUTANT
        left = tv[2*t+1] & (~tv[2*t+2] | (tc[(2*t+1)*CodeWidth +: CodeWidth] < tc[(2*t+2)*CodeWidth +: CodeWidth]));
`else
        left = tv[2*t+1] & (~tv[2*t+2] | (tc[(2*t+1)*CodeWidth +: CodeWidth] <= tc[(2*t+2)*CodeWidth +: CodeWidth]));
`endif
        tv[t] = tv[2*t+1] | tv[2*t+2];
        tc[t*CodeWidth +: CodeWidth] = left ? tc[(2*t+1)*CodeWidth +: CodeWidth] : tc[(2*t+2)*CodeWidth +: CodeWidth];
        ti[t*SbW +: SbW] = left ? ti[(2*t+1)*SbW +: SbW] : ti[(2*t+2)*SbW +: SbW];
      end
    end
    pick = ti[0 +: SbW];
    best = tc[0 +: CodeWidth];
  end
  // Pick k is slow by its code, or by rank: k >= NumSbs - nslow.
  wire [SbW+1:0] k_rank = {2'b00, k_q} + {1'b0, nslow_q};
  wire pick_slow = (best > thr_q) | (k_rank >= NumSbsC);

  // ---- hybrid swaps: F, C and the swap count ----
  wire [CntW-1:0] f_cnt = {1'b0, nf_q[CntW-1:1]};         // nf / 2
  wire [CntW-1:0] c_cnt = f_cnt + {{(CntW-1){1'b0}}, nf_q[0]};  // ceil(nf / 2)
  wire [CntW-1:0] s_cnt = NumVbsC - c_cnt;
  wire [CntW-1:0] h_cnt = {{(CntW-VbW){1'b0}}, nhyb_q[VbW:1]};  // nhyb / 2
  wire [CntW-1:0] n_fs  = (f_cnt < s_cnt) ? f_cnt : s_cnt;
  wire [CntW-1:0] nswap = (h_cnt < n_fs) ? h_cnt : n_fs;

  reg [EntW-1:0] ev, eu;
  reg [CntW-1:0] vc, uc_unused;
  reg [VbW-1:0]  u;
  integer sw;
  always @(*) begin
    sw = 0;
    ev = {EntW{1'b0}};
    eu = {EntW{1'b0}};
    vc = {CntW{1'b0}};
    uc_unused = {CntW{1'b0}};
    u  = {VbW{1'b0}};
    st_d    = st_q;
    k_d     = k_q;
    taken_d = taken_q;
    nhyb_d  = nhyb_q;
    prev_d  = prev_q;
    nf_d    = nf_q;
    bot_d   = bot_mem_q;
    case (st_q)
      SIdle: begin
        if (we_i) bot_d[widx_i*EntW +: EntW] = wdata_i;
        if (reorg_i) begin
          st_d    = SSort;
          k_d     = {SbW{1'b0}};
          taken_d = {NumSbs{1'b0}};
          nhyb_d  = nhyb_i;
          nf_d    = {CntW{1'b0}};
        end
      end
      SSort: begin
        taken_d[pick] = 1'b1;
        nf_d = nf_q + {{(CntW-1){1'b0}}, ~pick_slow};
        if (!k_q[0]) prev_d = {pick_slow, pick};
        else bot_d[k_q[SbW-1:1]*EntW +: EntW] = {pick_slow, prev_q[SbW], pick, prev_q[SbW-1:0]};
        k_d = k_q + 1'b1;
        if (k_q == LastK) st_d = SSwap;
      end
      default: begin  // SSwap
        for (sw = 0; sw < NumVbs; sw = sw + 1) begin
          vc = sw[CntW-1:0];
          if (vc + nswap >= f_cnt && vc < f_cnt) begin
            uc_unused = nf_q - 1'b1 - vc;  // partner, C + (F-1-v) < NumVbs
            u = uc_unused[VbW-1:0];
            ev = bot_mem_q[sw*EntW +: EntW];
            eu = bot_mem_q[u*EntW +: EntW];
            // sw keeps its fast sbA and takes the partner's sbA (slow).
            bot_d[sw*EntW +: EntW] = {eu[2*SbW], ev[2*SbW], eu[SbW-1:0], ev[SbW-1:0]};
            // The partner gets v's sbB (fast) in slot A and keeps its sbB.
            bot_d[u*EntW +: EntW] = {eu[2*SbW+1], ev[2*SbW+1], eu[2*SbW-1:SbW], ev[2*SbW-1:SbW]};
          end
        end
        st_d = SIdle;
      end
    endcase
  end

  integer e;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (e = 0; e < NumVbs; e = e + 1)
        bot_mem_q[e*EntW +: EntW] <= {2'b00, e[SbW-1:0] * 2'd2 + 1'b1, e[SbW-1:0] * 2'd2};
      for (e = 0; e < NumSlots * NumVbs; e = e + 1)
        rt_mem_q[e*VbW +: VbW] <= e[VbW-1:0];
      stall_o <= {NumVbs{1'b0}};
      st_q    <= SIdle;
      k_q     <= {SbW{1'b0}};
      taken_q <= {NumSbs{1'b0}};
      nf_q    <= {CntW{1'b0}};
      prev_q  <= {(SbW+1){1'b0}};
      nhyb_q  <= {(VbW+1){1'b0}};
    end else begin
      bot_mem_q   <= bot_d;
      if (disp_i) rt_mem_q[disp_slot_i*RowW +: RowW] <= row;
      stall_o <= stall_d;
      st_q    <= st_d;
      k_q     <= k_d;
      taken_q <= taken_d;
      nf_q    <= nf_d;
      prev_q  <= prev_d;
      nhyb_q  <= nhyb_d;
    end
  end

  // Sensor snapshot at reorg_i: only meaningful while busy, so no reset.
  always @(posedge clk_i)
    if (st_q == SIdle && reorg_i) begin
      code_q  <= sensors_i;
      thr_q   <= slow_thr_i;
      nslow_q <= nslow_min_i;
    end
endmodule
