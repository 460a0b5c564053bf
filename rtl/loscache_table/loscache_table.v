// loscache_table: LoSCache per-SM prediction table and its phase FSM.
// Source: Tan dissertation Ch7 (spec 000 §5, §7b).
// C++ model: systemc/blocks/loscache_table/ (cycle contract: blocks/block.h).
//
// Purpose: learn, per memory-instruction PC, how often an L2 line is
// re-referenced (from one predictor CTA), then predict the access count of
// each later access so the L2 can power-gate the line after its last use.
//
// Ports (clk_i, rst_ni: clock, asynchronous active-low reset):
//   start_i                       clear the table, enter PREDICT (kernel start)
//   predictor_done_i              all predictor CTAs finished (ends PREDICT)
//   l2_access_i                   one L2 access by this SM this cycle
//   insert_valid_i/pc_i/blk_i     PREDICT: add {pc, blk} if pc is new, table not full
//   lookup_valid_i/pc_i           NORMAL: associative lookup on pc
//   lookup_hit_o/entry_o/pred_o   pred = min(cnt + thr, 2^CntWidth-1); 0 on a miss
//   query_valid_o/entry_o/blk_o, query_ready_i   UPDATE: ask the L2 for blk's count
//   fill_valid_i/entry_i/count_i  UPDATE: the count for a queried entry
//   mispredict_valid_i/entry_i    NORMAL: thr + 1, saturating at 2^ThrWidth-1
//   phase_o                       0 NORMAL, 1 PREDICT, 2 UPDATE
//   full_o                        every entry allocated
// Timing: outputs are combinational from the registers and the inputs
// (lookup in the same cycle; the LD/ST pipeline adds the paper's +1 cycle);
// all updates land at the rising edge.
//
// Choices where the dissertation is silent:
//  - Reset state NORMAL with an empty table: lookups miss, nothing is gated.
//  - Allocation in order through a pointer: inserts happen only in PREDICT,
//    before any entry can be dropped, so no free-list encoder is needed.
//  - Insert and lookup share one bank of PC comparators (never the same phase).
//    Lookups outside NORMAL miss, inserts outside PREDICT and mispredicts
//    outside NORMAL are ignored; start_i wins over everything.
//  - PhaseLimit counts this SM's L2 accesses; the access that reaches it ends
//    PREDICT at that edge. UPDATE walks entries 0..alloc-1, one query per
//    accepted handshake; fills may come back in any order and only count for
//    entries with a query in flight; a count of 0 drops the entry. UPDATE
//    ends (-> NORMAL) once every query is sent and answered.
//  - Mispredicts and fills name the entry id; ids >= NumEntries are ignored.
// Storage: pc/blk/cnt/thr are the *_mem_q arrays; valid and pending are control.
// RELGPU_MUTANT (test only): the threshold wraps instead of saturating.
module loscache_table #(
  parameter int NumEntries = 21,
  parameter int PcWidth    = 32,
  parameter int BlkWidth   = 25,
  parameter int CntWidth   = 6,
  parameter int ThrWidth   = 2,
  parameter int PhaseLimit = 100,
  localparam int EntryWidth = $clog2(NumEntries),
  localparam int PtrWidth   = $clog2(NumEntries + 1),
  localparam int AccWidth   = $clog2(PhaseLimit + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  start_i,
  input  logic                  predictor_done_i,
  input  logic                  l2_access_i,
  input  logic                  insert_valid_i,
  input  logic [PcWidth-1:0]    insert_pc_i,
  input  logic [BlkWidth-1:0]   insert_blk_i,
  input  logic                  lookup_valid_i,
  input  logic [PcWidth-1:0]    lookup_pc_i,
  input  logic                  query_ready_i,
  input  logic                  fill_valid_i,
  input  logic [EntryWidth-1:0] fill_entry_i,
  input  logic [CntWidth-1:0]   fill_count_i,
  input  logic                  mispredict_valid_i,
  input  logic [EntryWidth-1:0] mispredict_entry_i,
  output logic [1:0]            phase_o,
  output logic                  full_o,
  output logic                  lookup_hit_o,
  output logic [EntryWidth-1:0] lookup_entry_o,
  output logic [CntWidth-1:0]   lookup_pred_o,
  output logic                  query_valid_o,
  output logic [EntryWidth-1:0] query_entry_o,
  output logic [BlkWidth-1:0]   query_blk_o
);
  localparam logic [1:0] PhNormal = 2'd0, PhPredict = 2'd1, PhUpdate = 2'd2;
  localparam logic [ThrWidth-1:0] ThrMax = {ThrWidth{1'b1}};

  logic [1:0]            phase_q, phase_d;
  logic [PtrWidth-1:0]   alloc_q, alloc_d, qptr_q, qptr_d;
  logic [AccWidth-1:0]   acc_q, acc_d;
  logic [NumEntries-1:0] valid_q, valid_d, pend_q, pend_d;
  logic [PcWidth-1:0]    pc_mem_q  [NumEntries];
  logic [BlkWidth-1:0]   blk_mem_q [NumEntries];
  logic [CntWidth-1:0]   cnt_mem_q [NumEntries];
  logic [ThrWidth-1:0]   thr_mem_q [NumEntries];
  // Per-entry write enables of the arrays (computed below).
  logic [NumEntries-1:0] ins_we, fill_we, thr_inc;

  // One comparator bank; the key is the insert PC in PREDICT, else the lookup PC.
  logic [PcWidth-1:0]    key;
  logic [NumEntries-1:0] match;
  logic                  any_match;
  logic [EntryWidth-1:0] match_idx;
  always_comb begin
    key = (phase_q == PhPredict) ? insert_pc_i : lookup_pc_i;
    match_idx = '0;
    for (int i = NumEntries - 1; i >= 0; i--) begin
      match[i] = valid_q[i] && (pc_mem_q[i] == key);
      if (match[i]) match_idx = EntryWidth'(i);
    end
    any_match = |match;
  end

  logic [CntWidth:0] pred_sum;
  always_comb begin
    pred_sum = {1'b0, cnt_mem_q[match_idx]} + (CntWidth+1)'(thr_mem_q[match_idx]);
  end
  assign lookup_hit_o   = lookup_valid_i && (phase_q == PhNormal) && any_match;
  assign lookup_entry_o = lookup_hit_o ? match_idx : '0;
  assign lookup_pred_o  = !lookup_hit_o ? '0 : (pred_sum[CntWidth] ? {CntWidth{1'b1}} : pred_sum[CntWidth-1:0]);

  logic [EntryWidth-1:0] qidx;
  assign qidx          = qptr_q[EntryWidth-1:0];
  assign query_valid_o = (phase_q == PhUpdate) && (qptr_q < alloc_q);
  assign query_entry_o = query_valid_o ? qidx : '0;
  assign query_blk_o   = query_valid_o ? blk_mem_q[qidx] : '0;
  assign phase_o       = phase_q;
  assign full_o        = alloc_q == PtrWidth'(NumEntries);

  logic [AccWidth-1:0] acc_inc;
  assign acc_inc = acc_q + AccWidth'(l2_access_i);

  logic insert_ok, fill_ok, mispredict_ok;
  assign insert_ok     = !start_i && phase_q == PhPredict && insert_valid_i && !any_match && !full_o;
  assign fill_ok       = !start_i && phase_q == PhUpdate && fill_valid_i && 32'(fill_entry_i) < NumEntries
                         && pend_q[fill_entry_i];
  assign mispredict_ok = !start_i && phase_q == PhNormal && mispredict_valid_i
                         && 32'(mispredict_entry_i) < NumEntries && valid_q[mispredict_entry_i];
  always_comb begin
    for (int i = 0; i < NumEntries; i++) begin
      ins_we[i]  = insert_ok && alloc_q == PtrWidth'(i);
      fill_we[i] = fill_ok && fill_entry_i == EntryWidth'(i);
`ifdef RELGPU_MUTANT
      thr_inc[i] = mispredict_ok && mispredict_entry_i == EntryWidth'(i);
`else
      thr_inc[i] = mispredict_ok && mispredict_entry_i == EntryWidth'(i) && thr_mem_q[i] != ThrMax;
`endif
    end
  end

  always_comb begin
    phase_d = phase_q;
    alloc_d = alloc_q;
    qptr_d  = qptr_q;
    acc_d   = acc_q;
    valid_d = valid_q;
    pend_d  = pend_q;
    if (start_i) begin
      phase_d = PhPredict;
      alloc_d = '0;
      qptr_d  = '0;
      acc_d   = '0;
      valid_d = '0;
      pend_d  = '0;
    end else begin
      case (phase_q)
        PhPredict: begin
          valid_d = valid_q | ins_we;
          if (insert_ok) alloc_d = alloc_q + 1'b1;
          acc_d = acc_inc;
          if (acc_inc >= AccWidth'(PhaseLimit) || predictor_done_i) begin
            phase_d = PhUpdate;
            qptr_d  = '0;
          end
        end
        PhUpdate: begin
          if (query_valid_o && query_ready_i) begin
            pend_d[qidx] = 1'b1;
            qptr_d = qptr_q + 1'b1;
          end
          pend_d = pend_d & ~fill_we;
          if (fill_ok && fill_count_i == '0) valid_d = valid_q & ~fill_we;
          if (qptr_q == alloc_q && pend_q == '0) phase_d = PhNormal;
        end
        default: ;  // PhNormal: only the thresholds change
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      phase_q <= PhNormal;
      alloc_q <= '0;
      qptr_q  <= '0;
      acc_q   <= '0;
      valid_q <= '0;
      pend_q  <= '0;
    end else begin
      phase_q <= phase_d;
      alloc_q <= alloc_d;
      qptr_q  <= qptr_d;
      acc_q   <= acc_d;
      valid_q <= valid_d;
      pend_q  <= pend_d;
    end
  end

  // The arrays: cleared at start, written per entry.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < NumEntries; i++) begin
        pc_mem_q[i]  <= '0;
        blk_mem_q[i] <= '0;
        cnt_mem_q[i] <= '0;
        thr_mem_q[i] <= '0;
      end
    end else begin
      for (int i = 0; i < NumEntries; i++) begin
        if (start_i) begin
          pc_mem_q[i]  <= '0;
          blk_mem_q[i] <= '0;
          cnt_mem_q[i] <= '0;
          thr_mem_q[i] <= '0;
        end else begin
          if (ins_we[i]) begin
            pc_mem_q[i]  <= insert_pc_i;
            blk_mem_q[i] <= insert_blk_i;
            cnt_mem_q[i] <= '0;
            thr_mem_q[i] <= '0;
          end
          if (fill_we[i]) cnt_mem_q[i] <= fill_count_i;
          if (thr_inc[i]) thr_mem_q[i] <= thr_mem_q[i] + 1'b1;
        end
      end
    end
  end
endmodule
