// The two-slot compute stage's proofs (vta_compute_dual.sv, COMPUTE_ISSUE 2): its hazard rule and its
// tokens, stated on what each slot runs. The proof cuts the units, the SRAMs, the micro-op table and
// the byte counter (formal.py's "cut": their outputs take any value in every cycle), so what it proves
// holds whatever they answer and speaks of the dispatch alone: the table's bounds are uop_table's
// proofs, the banks' ports the simulations' assertions (TwoReadsOfABank, TwoWritesOfABank).
//
// Hazards. Each footprint the stage computes is followed with the accumulator ranges it speaks for,
// taken from F1 when F2 takes its own: a GEMM writes and reads [dst_lo, its loop's reach]; an ALU
// instruction writes that range and reads it and, without an immediate, its source range; an
// accumulator load writes its rows. While both slots run and slot A runs no micro-op load, both
// footprints are known (inside the buffer), their ranges are apart, and each lies in one bank, not
// the other's (HazardRangesApart, HazardBanksApart).
//
// Tokens. A push to the store stage leaves only once every instruction that started no later than
// its own has completed (each slot runs one at a time: what either slot ran when it started, and
// itself); a push to the load stage once every GEMM that started no later has (only GEMMs read the
// buffers the load stage fills). Each queue has at most one push waiting (so they leave in program
// order), and one waiting leaves as soon as what it waits for has completed.
`include "vta_formal.svh"

// the instruction queue holds its head (and fetch's verdict on it) until the stage takes it
`VTA_ASSERT_HANDSHAKE(InsnHeldUntilTaken, insn_valid_i, insn_ready_o, {insn_i, insn_legal_i})

// the micro-op table's answers, cut here, are ordered bounds (uop_table's TableBoundsHoldTheWord: a
// hit's range holds micro-ops whose indices lie within both bounds)
`VTA_ASSERT_IMPLIES(TableAnswersOrdered, |hit, dst_lo <= dst_hi && src_lo <= src_hi)

// ---- hazards ------------------------------------------------------------------------------------
// the candidate's ranges (F1 -> F2) and each slot's (at its start)
typedef struct packed {
  logic          acc;    // it reads or writes the accumulator
  logic          known;  // its ranges are known and inside the buffer
  logic [RW-1:0] w_lo, w_hi, r_lo, r_hi;
} f_ranges_t;
f_ranges_t f_cand, f_c_q, f_g_q, f_a_q;
always_comb begin
  f_cand = '0;
  if (f1_gemm_q || f1_alu_q) begin
    f_cand.acc   = 1'b1;
    f_cand.known = |f1_hit_q && reach_dst < RW'(AccBuffDepth) && RW'(f1_dst_lo_q) <= reach_dst &&
                   (f1_gemm_q || f1_imm_q || (reach_src < RW'(AccBuffDepth) && RW'(f1_src_lo_q) <= reach_src));
    f_cand.w_lo  = RW'(f1_dst_lo_q);
    f_cand.w_hi  = reach_dst;
    f_cand.r_lo  = f1_gemm_q || f1_imm_q ? RW'(f1_dst_lo_q) : RW'(f1_src_lo_q);
    f_cand.r_hi  = f1_gemm_q || f1_imm_q ? reach_dst : reach_src;
  end else if (f1_acc_q || f1_acc8_q) begin
    f_cand.acc   = 1'b1;
    f_cand.known = load_hi < LW'(AccBuffDepth);  // (no rows: base - 1, an empty range)
    f_cand.w_lo  = RW'(f1_base_q);
    f_cand.w_hi  = RW'(load_hi);
    f_cand.r_lo  = RW'(f1_base_q);
    f_cand.r_hi  = RW'(load_hi);
  end
end
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    {f_c_q, f_g_q, f_a_q} <= '0;
  end else begin
    if (f1_q) f_c_q <= f_cand;
    if (start_gemm) f_g_q <= f_c_q;
    if (start && to_a) f_a_q <= f_c_q;
  end
end
function automatic logic f_apart(logic [RW-1:0] lo0, hi0, lo1, hi1);
  f_apart = hi0 < lo1 || hi1 < lo0;
endfunction
function automatic logic f_in_bank(logic [RW-1:0] lo, hi, logic b);
  f_in_bank = b ? lo >= RW'(Half) && hi < RW'(AccBuffDepth) : hi < RW'(Half);
endfunction
logic f_beside;  // slot A runs an ALU instruction or an accumulator load beside a GEMM
assign f_beside = run_g_q && run_a_q && unit_a_q != UnitUop;
`VTA_PROVE_IMPLIES(HazardRangesApart, f_beside,
                   f_g_q.known && f_a_q.known && f_apart(f_g_q.w_lo, f_g_q.w_hi, f_a_q.w_lo, f_a_q.w_hi) &&
                   f_apart(f_g_q.w_lo, f_g_q.w_hi, f_a_q.r_lo, f_a_q.r_hi))
`VTA_PROVE_IMPLIES(HazardBanksApart, f_beside,
                   f_in_bank(f_g_q.w_lo, f_g_q.w_hi, g_bank_q) && f_in_bank(f_a_q.w_lo, f_a_q.w_hi, !g_bank_q) &&
                   f_in_bank(f_a_q.r_lo, f_a_q.r_hi, !g_bank_q))
// (what the step needs: F1's and F2's registers describe one instruction, and the footprints'
// registers speak for the ranges followed)
`VTA_PROVE(F1OneKind, $onehot0({f1_gemm_q, f1_alu_q, f1_uop_q, f1_acc_q, f1_acc8_q}))
`VTA_PROVE(F2OneKind, $onehot0({f2_gemm_q, f2_alu_q, f2_uop_q, f2_acc_q, f2_acc8_q}))
`VTA_PROVE_IMPLIES(F1BoundsOrdered, |f1_hit_q,
                   (f1_gemm_q || f1_alu_q) && f1_dst_lo_q <= f1_dst_hi_q && f1_src_lo_q <= f1_src_hi_q)
`VTA_PROVE_IMPLIES(CandidateBankHolds, f2_q && f2_pair_q,
                   f_c_q.known && f_in_bank(f_c_q.w_lo, f_c_q.w_hi, f2_bank_q) &&
                   f_in_bank(f_c_q.r_lo, f_c_q.r_hi, f2_bank_q))
`VTA_PROVE_IMPLIES(GemmBankHolds, run_g_q && g_pair_q, f_g_q.known && f_in_bank(f_g_q.w_lo, f_g_q.w_hi, g_bank_q))
`VTA_PROVE_IMPLIES(AluBankHolds, run_a_q && a_pair_q && unit_a_q != UnitUop,
                   f_a_q.known && f_in_bank(f_a_q.w_lo, f_a_q.w_hi, a_bank_q) &&
                   f_in_bank(f_a_q.r_lo, f_a_q.r_hi, a_bank_q))
`VTA_PROVE_IMPLIES(BesideIsPaired, f_beside, g_pair_q && a_pair_q && g_bank_q != a_bank_q)
`VTA_PROVE_IMPLIES(CandidateFollowsItsSlot, f2_q, f_c_q.acc == (f2_gemm_q || f2_alu_q || f2_acc_q || f2_acc8_q))

// ---- tokens -------------------------------------------------------------------------------------
// what a waiting push still owes: the instructions (per slot) that started no later than its own
logic f_next_g_q, f_next_a_q, f_prev_g_q;
logic f_g_runs, f_a_runs;  // the slot's instruction, not completing in this cycle
assign f_g_runs = run_g_q && !done_g;
assign f_a_runs = run_a_q && !done_a;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    {f_next_g_q, f_next_a_q, f_prev_g_q} <= '0;
  end else begin
    if (done_g) {f_next_g_q, f_prev_g_q} <= '0;
    if (done_a) f_next_a_q <= 1'b0;
    if (take && insn_legal_i && deps.push_next) begin
      f_next_g_q <= f_g_runs || start_gemm;
      f_next_a_q <= f_a_runs || (start && to_a);
    end
    if (take && insn_legal_i && deps.push_prev) f_prev_g_q <= f_g_runs || start_gemm;
  end
end
// a waiting push leaves once what it owes completes; one made in this cycle leaves only with no
// instruction running or starting (its own then runs alone: FINISH, a load of nothing)
`VTA_PROVE_IMPLIES(StorePushAfterTheOlder, g2s_push_o,
                   pend_next_q ? (!f_next_g_q || done_g) && (!f_next_a_q || done_a) : !f_g_runs && !f_a_runs && !start)
`VTA_PROVE_IMPLIES(LoadPushAfterTheGemms, g2l_push_o,
                   pend_prev_q ? !f_prev_g_q || done_g : !f_g_runs && !start_gemm)
// (the stage remembers, with a waiting push, exactly the instructions it owes)
`VTA_PROVE_IMPLIES(AWaitingStorePushRemembersTheOlder, pend_next_q,
                   f_next_g_q == need_next_g_q && f_next_a_q == need_next_a_q)
`VTA_PROVE_IMPLIES(AWaitingLoadPushRemembersTheGemm, pend_prev_q, f_prev_g_q == need_prev_g_q && !need_prev_a_q)
`VTA_PROVE(OwesOnlyWhatRuns, (!f_next_g_q || run_g_q) && (!f_next_a_q || run_a_q) && (!f_prev_g_q || run_g_q))
`VTA_PROVE(OnePushWaitingToTheStore, !(pend_next_q && take && insn_legal_i && deps.push_next))
`VTA_PROVE(OnePushWaitingToTheLoad, !(pend_prev_q && take && insn_legal_i && deps.push_prev))
`VTA_PROVE_IMPLIES(AWaitingStorePushLeaves, pend_next_q && (!f_next_g_q || done_g) && (!f_next_a_q || done_a),
                   g2s_push_o)
`VTA_PROVE_IMPLIES(AWaitingLoadPushLeaves, pend_prev_q && (!f_prev_g_q || done_g), g2l_push_o)
`VTA_REACH(GemmBesideAlu, run_g_q && run_a_q && unit_a_q == UnitAlu)
`VTA_REACH(GemmBesideAccLoad, run_g_q && run_a_q && (unit_a_q == UnitAcc || unit_a_q == UnitAcc8))
`VTA_REACH(StorePushWaitsForBoth, pend_next_q && f_next_g_q && f_next_a_q)
