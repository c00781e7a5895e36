// vta_uop_table's proofs: the bounds a lookup gives hold the micro-ops they speak for, which is what
// the two-slot compute stage's footprints, and so its hazard rule, rest on (vta_compute_dual.sv). One
// micro-op index, f_addr (any constant), is followed with the word the loads wrote there last. A lookup
// that hits a range holding f_addr gives destination and source bounds that contain that word's,
// unless the load in progress wrote it (its old entries are dropped only when it completes, and the
// stage runs nothing over micro-ops a running load writes). The entries never overlap (one hit at
// most), and their ranks stay a permutation (one entry is the least recent).
`include "vta_formal.svh"

(* anyconst *) logic [LogUopBuffDepth-1:0] f_addr;
logic f_loading_q;  // between a load's start and its completion
logic f_wrote_q;    // the load in progress (or, until the next starts, the last) wrote f_addr
logic f_stale_q;    // ... and has not completed: entries holding f_addr may speak of the old word
logic f_known_q;    // f_addr was written at least once: f_word_q is its word
uop_t f_word_q;
always_ff @(posedge clk_i or negedge rst_ni) begin
  if (!rst_ni) begin
    f_loading_q <= 1'b0;
    f_wrote_q   <= 1'b0;
    f_stale_q   <= 1'b0;
    f_known_q   <= 1'b0;
    f_word_q    <= '0;
  end else begin
    if (rec_start_i) begin
      f_loading_q <= 1'b1;
      f_wrote_q   <= 1'b0;
    end
    if (rec_we_i && rec_addr_i == f_addr) begin
      f_wrote_q <= 1'b1;
      f_stale_q <= 1'b1;
      f_known_q <= 1'b1;
      f_word_q  <= w;
    end
    if (rec_done_i) begin
      f_loading_q <= 1'b0;
      f_stale_q   <= 1'b0;
    end
  end
end

// the stage's side: a load's words and completion come after its start, one load at a time
`VTA_ASSUME(TableLoadsOneAtATime, !(f_loading_q && rec_start_i) && !(!f_loading_q && (rec_we_i || rec_done_i)))

function automatic logic f_holds(logic [LogAccBuffDepth-1:0] dlo, logic [LogAccBuffDepth-1:0] dhi,
                                 logic [UopSrcIdxBits-1:0] slo, logic [UopSrcIdxBits-1:0] shi);
  f_holds = f_known_q && dlo <= f_word_q.dst && f_word_q.dst <= dhi && slo <= f_word_q.src && f_word_q.src <= shi;
endfunction
logic f_in_rec;  // f_addr lies in the range the load being recorded wrote
assign f_in_rec = rec_any_q && rec_lo_q <= UW'(f_addr) && UW'(f_addr) <= rec_hi_q;

`VTA_PROVE_IMPLIES(TableBoundsHoldTheWord, |hit_o && UW'(bgn_i) <= UW'(f_addr) && UW'(f_addr) < end_i && !f_stale_q,
                   f_holds(dst_lo_o, dst_hi_o, src_lo_o, src_hi_o))

// ---- strengthening invariants ---------------------------------------------------------------------
// each entry holding f_addr bounds its word (unless a load in progress wrote it); no entry is empty,
// overlaps another, or (while the table inserts) overlaps the range the load wrote; no two ranks agree
logic f_bound, f_not_empty, f_apart, f_clear_of_load, f_ranks_apart;
always_comb begin
  {f_bound, f_not_empty, f_apart, f_clear_of_load, f_ranks_apart} = '1;
  for (int i = 0; i < N; i++) begin
    if (valid_q[i] && base_q[i * UW +: UW] <= UW'(f_addr) && UW'(f_addr) < end_q[i * UW +: UW] && !f_stale_q &&
        !f_holds(dst_lo_q[i * AW +: AW], dst_hi_q[i * AW +: AW], src_lo_q[i * SW +: SW], src_hi_q[i * SW +: SW])) begin
      f_bound = 1'b0;
    end
    if (valid_q[i] && !(base_q[i * UW +: UW] < end_q[i * UW +: UW])) f_not_empty = 1'b0;
    if (busy_o && valid_q[i] && base_q[i * UW +: UW] <= rec_hi_q && rec_lo_q < end_q[i * UW +: UW]) f_clear_of_load = 1'b0;
    for (int j = i + 1; j < N; j++) begin
      if (valid_q[i] && valid_q[j] && base_q[i * UW +: UW] < end_q[j * UW +: UW] &&
          base_q[j * UW +: UW] < end_q[i * UW +: UW]) begin
        f_apart = 1'b0;
      end
      if (rank_q[i * RankW +: RankW] == rank_q[j * RankW +: RankW]) f_ranks_apart = 1'b0;
    end
  end
end
`VTA_PROVE(TableEntriesBoundTheWord, f_bound)
`VTA_PROVE(TableEntriesNotEmpty, f_not_empty)
`VTA_PROVE(TableEntriesApart, f_apart)
`VTA_PROVE(TableInsertsIntoNoOverlap, f_clear_of_load)
`VTA_PROVE(TableRanksApart, f_ranks_apart)
// the load being recorded: its range is what it wrote (consecutive indices), and holds f_addr's word
// when it wrote f_addr; it is recorded from its start until its entry is written
`VTA_PROVE(TableStaleOnlyWhileLoading, !f_stale_q || (f_loading_q && f_wrote_q))
`VTA_PROVE(TableRecordsOneLoad, !busy_o || (!f_loading_q && rec_any_q))
`VTA_PROVE(TableRecordedRange, !(f_loading_q || busy_o) || (f_in_rec == f_wrote_q))
`VTA_PROVE(TableRecordedBounds, !((f_loading_q || busy_o) && f_wrote_q) ||
                                f_holds(rec_dst_lo_q, rec_dst_hi_q, rec_src_lo_q, rec_src_hi_q))
`VTA_PROVE(TableRecordedOrder, !rec_any_q || rec_lo_q <= rec_hi_q)
`VTA_PROVE(TableInsertsOnce, !(ins1_q && ins2_q))
`VTA_PROVE(TableOneSlot, !ins2_q || $onehot(slot_q))
`VTA_PROVE(TableOneUse, $onehot0(use_q))

`VTA_REACH(TableHitsAfterALoad, |hit_o && UW'(bgn_i) <= UW'(f_addr) && UW'(f_addr) < end_i && f_known_q)
`VTA_REACH(TableReplacesTheLeastRecent, ins1_q && !free_found)
`VTA_REACH(TableDropsAnOverwrittenEntry, rec_done_i && rec_any_q && (valid_q & ~keep) != '0)
