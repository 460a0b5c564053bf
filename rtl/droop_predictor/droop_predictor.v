// droop_predictor: local di/dt droop predictor, one per SM.
// Source: Leng, GPU voltage-guardband thesis, §4.5 (spec 004 §5.1).
// C++ model: systemc/blocks/droop_predictor/ (cycle contract: blocks/block.h).
//
// Purpose: every cycle, estimate the SM power P from the dispatch counts per
// class and the RF access counts, and predict a large first-order droop when
// the power increment over a 2..HistDepth-cycle window exceeds its threshold.
//
// Ports:
//   clk_i, rst_ni              clock, asynchronous active-low reset
//   n_int_i/n_fp_i/n_sfu_i/n_ldst_i [CntWidth]  instructions dispatched this cycle
//   n_rf_rd_i/n_rf_wr_i [RfCntWidth]            RF bank reads/writes this cycle
//   csr_we_i, csr_addr_i [4], csr_wdata_i [PowerWidth]  register write port
//   power_o [PowerWidth]       P = sum W_c*n_c, saturated
//   droop_o                    any (P - hist[k-2] > T_k), k = 2..HistDepth
//   throttle_dispatch_o        droop_o & mask[0]
//   throttle_rf_o              droop_o & mask[1]
// Timing: all outputs are combinational from the inputs and the registers
// (same-cycle action, 0 cycles latency); CSR writes and the history push
// take effect at the rising edge.
//
// Choices where the thesis is silent:
//  - The 4-entry FIFO is {P, hist[0..2]}: current estimate plus HistDepth-1
//    stored ones (a 4th stored entry would never be read).
//  - "Exceeds" is strictly greater; negative increments never trigger.
//  - P saturates at 2^PowerWidth-1 rather than wrapping.
//  - The history records the candidate power even when throttled (the block
//    does not see the reduced issue set).
//  - History resets to 0. Weights, thresholds and a 2-bit throttle mask are
//    CSRs: address 0..5 W_int W_fp W_sfu W_ldst W_rf_rd W_rf_wr, 6..8 T2..T4,
//    9 mask (bit0 dispatch, bit1 RF); other addresses and T_k with
//    k > HistDepth are ignored. Reset values are parameters; the thesis
//    gives no trained values, so the defaults are our own round numbers and
//    software programs fitted ones through the CSRs.
// RELGPU_MUTANT (test only): T2 compares with >= instead of >.
module droop_predictor #(
  parameter int CntWidth    = 2,
  parameter int RfCntWidth  = 5,
  parameter int WeightWidth = 8,
  parameter int PowerWidth  = 12,
  parameter int HistDepth   = 4,   // 2..4
  parameter int WIntReset   = 12,
  parameter int WFpReset    = 20,
  parameter int WSfuReset   = 40,
  parameter int WLdstReset  = 30,
  parameter int WRfRdReset  = 6,
  parameter int WRfWrReset  = 8,
  parameter int Thr2Reset   = 120,
  parameter int Thr3Reset   = 160,
  parameter int Thr4Reset   = 200,
  parameter int MaskReset   = 3
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [CntWidth-1:0]   n_int_i,
  input  logic [CntWidth-1:0]   n_fp_i,
  input  logic [CntWidth-1:0]   n_sfu_i,
  input  logic [CntWidth-1:0]   n_ldst_i,
  input  logic [RfCntWidth-1:0] n_rf_rd_i,
  input  logic [RfCntWidth-1:0] n_rf_wr_i,
  input  logic                  csr_we_i,
  input  logic [3:0]            csr_addr_i,
  input  logic [PowerWidth-1:0] csr_wdata_i,
  output logic [PowerWidth-1:0] power_o,
  output logic                  droop_o,
  output logic                  throttle_dispatch_o,
  output logic                  throttle_rf_o
);
  // Wide enough for 6 products without overflow.
  localparam int SumWidth = WeightWidth + ((CntWidth > RfCntWidth) ? CntWidth : RfCntWidth) + 3;
  localparam logic [SumWidth-1:0] PowerMax = {{(SumWidth-PowerWidth){1'b0}}, {PowerWidth{1'b1}}};

  logic [WeightWidth-1:0] w_q [6];
  logic [PowerWidth-1:0]  thr_q [3];
  logic [1:0]             mask_q;
  logic [PowerWidth-1:0]  hist_q [3];

  // Power estimate: shift-add tree of the six weighted counts.
  logic [SumWidth-1:0] sum;
  always_comb begin
    sum = SumWidth'(w_q[0]) * SumWidth'(n_int_i)
        + SumWidth'(w_q[1]) * SumWidth'(n_fp_i)
        + SumWidth'(w_q[2]) * SumWidth'(n_sfu_i)
        + SumWidth'(w_q[3]) * SumWidth'(n_ldst_i)
        + SumWidth'(w_q[4]) * SumWidth'(n_rf_rd_i)
        + SumWidth'(w_q[5]) * SumWidth'(n_rf_wr_i);
  end
  assign power_o = (sum > PowerMax) ? {PowerWidth{1'b1}} : sum[PowerWidth-1:0];

  // P - hist > T  <=>  P > hist + T, in PowerWidth+1 bits (no sign needed).
  logic [2:0] over;
  always_comb begin
    for (int k = 0; k < 3; k++) begin
      if (k + 2 <= HistDepth) begin
`ifdef RELGPU_MUTANT
        if (k == 0) over[k] = {1'b0, power_o} >= {1'b0, hist_q[k]} + {1'b0, thr_q[k]};
        else
`endif
        over[k] = {1'b0, power_o} > {1'b0, hist_q[k]} + {1'b0, thr_q[k]};
      end else begin
        over[k] = 1'b0;
      end
    end
  end
  assign droop_o             = |over;
  assign throttle_dispatch_o = droop_o & mask_q[0];
  assign throttle_rf_o       = droop_o & mask_q[1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_q[0]    <= WeightWidth'(WIntReset);
      w_q[1]    <= WeightWidth'(WFpReset);
      w_q[2]    <= WeightWidth'(WSfuReset);
      w_q[3]    <= WeightWidth'(WLdstReset);
      w_q[4]    <= WeightWidth'(WRfRdReset);
      w_q[5]    <= WeightWidth'(WRfWrReset);
      thr_q[0]  <= PowerWidth'(Thr2Reset);
      thr_q[1]  <= PowerWidth'(Thr3Reset);
      thr_q[2]  <= PowerWidth'(Thr4Reset);
      mask_q    <= 2'(MaskReset);
      for (int i = 0; i < 3; i++) hist_q[i] <= '0;
    end else begin
      if (csr_we_i) begin
        for (int i = 0; i < 6; i++)
          if (csr_addr_i == 4'(i)) w_q[i] <= csr_wdata_i[WeightWidth-1:0];
        for (int k = 0; k < 3; k++)
          if (csr_addr_i == 4'(6 + k) && k + 2 <= HistDepth) thr_q[k] <= csr_wdata_i;
        if (csr_addr_i == 4'd9) mask_q <= csr_wdata_i[1:0];
      end
      hist_q[0] <= power_o;
      hist_q[1] <= hist_q[0];
      hist_q[2] <= hist_q[1];
    end
  end
endmodule
