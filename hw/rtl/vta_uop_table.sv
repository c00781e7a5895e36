// The micro-op loads the two-slot compute stage remembers (vta/driver/compute_issue.h's UopLoadTable,
// the same rule): for each of the UopLoadTableEntries loads used most recently, the micro-op indices
// it wrote and the smallest and largest destination and source index among its micro-ops, so the
// stage can bound the accumulator a GEMM or ALU instruction touches from its loop fields alone.
//
// While a load runs its words are watched as they are written (rec_we_i); when it completes
// (rec_done_i) every entry it overwrote is dropped, and in the two cycles after (busy_o) it takes a
// free entry, else the one used least recently. A lookup of micro-ops [bgn_i, end_i) hits when one
// entry holds them all (the entries never overlap, so at most one does: hit_o, one-hot); use_i marks
// the entries of use_i used (one at most; the ranks change a cycle later). The stage does not use the
// table while it inserts (busy_o); a use in the cycle a load completes is one of an entry the load leaves
// alone or drops, and counts after the load's insertion chose its entry.
//
// Entries are chosen, read and written through one-hot vectors and AND-OR trees, never an index
// decoded or a priority chain: a 32-entry chain was the two-slot stage's critical path
// (docs/SYNTHESIS.md).
`include "vta_assert.svh"
module vta_uop_table
  import vta_config_pkg::*;
  import vta_pkg::*;
#(
  parameter int unsigned Entries = UopLoadTableEntries  // (the design's; the proofs take fewer)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // a micro-op load: its start, each word it writes (pads included), its completion
  input  logic                       rec_start_i,
  input  logic                       rec_we_i,
  input  logic [LogUopBuffDepth-1:0] rec_addr_i,
  input  uop_word_t                  rec_word_i,
  input  logic                       rec_done_i,
  // the lookup of micro-ops [bgn_i, end_i)
  input  logic [LogUopBuffDepth-1:0] bgn_i,
  input  logic [LogUopBuffDepth:0]   end_i,
  output logic                       busy_o,
  input  logic [Entries-1:0]         use_i,
  output logic [Entries-1:0]         hit_o,
  output logic [LogAccBuffDepth-1:0] dst_lo_o,
  output logic [LogAccBuffDepth-1:0] dst_hi_o,
  output logic [UopSrcIdxBits-1:0]   src_lo_o,
  output logic [UopSrcIdxBits-1:0]   src_hi_o
);
  localparam int unsigned N = Entries;
  localparam int unsigned RankW = $clog2(N);
  localparam int unsigned UW = LogUopBuffDepth + 1;
  typedef logic [UW-1:0] uidx_t;  // a micro-op index, or one past the last

  // the entries, a vector per field, entry i's bits at i * width (registers all read at once, not a
  // memory; Yosys 0.23 reads neither a field of an array's element nor an array of two packed dimensions)
  localparam int unsigned AW = LogAccBuffDepth, SW = UopSrcIdxBits;
  logic [N-1:0]      valid_q;
  logic [N*UW-1:0]   base_q, end_q;  // [base, end)
  logic [N*AW-1:0]   dst_lo_q, dst_hi_q;
  logic [N*SW-1:0]   src_lo_q, src_hi_q;
  logic [N*RankW-1:0] rank_q;  // 0: used most recently; the ranks are always a permutation of 0..N-1

  // ---- the load being recorded ----------------------------------------------------------------
  logic                       rec_any_q;
  uidx_t                      rec_lo_q, rec_hi_q;
  logic [LogAccBuffDepth-1:0] rec_dst_lo_q, rec_dst_hi_q;
  logic [UopSrcIdxBits-1:0]   rec_src_lo_q, rec_src_hi_q;
  uop_t                       w;
  assign w = decode_uop(rec_word_i);
  logic unused_wgt;  // (a micro-op's weight index touches no accumulator)
  assign unused_wgt = ^w.wgt;

  // ---- lookup -----------------------------------------------------------------------------------
  always_comb begin
    dst_lo_o = '0;
    dst_hi_o = '0;
    src_lo_o = '0;
    src_hi_o = '0;
    for (int i = 0; i < N; i++) begin
      hit_o[i] = valid_q[i] && base_q[i * UW +: UW] <= UW'(bgn_i) && end_i <= end_q[i * UW +: UW] &&
                 UW'(bgn_i) < end_i;
      dst_lo_o |= dst_lo_q[i * AW +: AW] & {AW{hit_o[i]}};
      dst_hi_o |= dst_hi_q[i * AW +: AW] & {AW{hit_o[i]}};
      src_lo_o |= src_lo_q[i * SW +: SW] & {SW{hit_o[i]}};
      src_hi_o |= src_hi_q[i * SW +: SW] & {SW{hit_o[i]}};
    end
  end

  // ---- the entry a completed load takes -------------------------------------------------------
  logic [N-1:0] keep;  // valid and not overwritten by the load
  logic [N-1:0] free_first, least_recent, slot;
  logic         free_found;
  always_comb begin
    for (int i = 0; i < N; i++) begin
      keep[i] = valid_q[i] && !(base_q[i * UW +: UW] <= rec_hi_q && rec_lo_q < end_q[i * UW +: UW]);
      least_recent[i] = rank_q[i * RankW +: RankW] == RankW'(N - 1);
    end
    // (a cycle later, once the overwritten entries are dropped) the first free entry, else the one
    // used least recently; the lowest clear bit of valid_q through the carry chain
    free_first = ~valid_q & (valid_q + 1'b1);
    free_found = !(&valid_q);
    slot       = free_found ? free_first : least_recent;
  end

  // the insertion's two steps: the entry chosen (ins1_q), then written (ins2_q); entries are picked
  // by the one-hot slot_q (an enable per entry, not a shift by an index times a width)
  logic             ins1_q, ins2_q;
  logic [N-1:0]     slot_q;
  assign busy_o = ins1_q || ins2_q;

  // the entry whose use (or recording) makes it the most recent, and its rank
  logic [N-1:0]     use_q;  // (a use changes the ranks a cycle later)
  logic             touch;
  logic [N-1:0]     touched;
  logic [RankW-1:0] touched_rank;
  always_comb begin
    touched      = ins2_q ? slot_q : use_q;
    touch        = |touched;
    touched_rank = '0;
    for (int i = 0; i < N; i++) touched_rank |= rank_q[i * RankW +: RankW] & {RankW{touched[i]}};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q  <= '0;
      base_q   <= '0;
      end_q    <= '0;
      dst_lo_q <= '0;
      dst_hi_q <= '0;
      src_lo_q <= '0;
      src_hi_q <= '0;
      for (int i = 0; i < N; i++) rank_q[i * RankW +: RankW] <= RankW'(i);
      ins1_q       <= 1'b0;
      ins2_q       <= 1'b0;
      slot_q       <= '0;
      use_q        <= '0;
      rec_any_q    <= 1'b0;
      rec_lo_q     <= '0;
      rec_hi_q     <= '0;
      rec_dst_lo_q <= '0;
      rec_dst_hi_q <= '0;
      rec_src_lo_q <= '0;
      rec_src_hi_q <= '0;
    end else begin
      if (rec_start_i) rec_any_q <= 1'b0;
      if (rec_we_i) begin
        rec_any_q <= 1'b1;
        if (!rec_any_q || UW'(rec_addr_i) < rec_lo_q) rec_lo_q <= UW'(rec_addr_i);
        if (!rec_any_q || UW'(rec_addr_i) > rec_hi_q) rec_hi_q <= UW'(rec_addr_i);
        if (!rec_any_q || w.dst < rec_dst_lo_q) rec_dst_lo_q <= w.dst;
        if (!rec_any_q || w.dst > rec_dst_hi_q) rec_dst_hi_q <= w.dst;
        if (!rec_any_q || w.src < rec_src_lo_q) rec_src_lo_q <= w.src;
        if (!rec_any_q || w.src > rec_src_hi_q) rec_src_hi_q <= w.src;
      end
      ins1_q <= rec_done_i && rec_any_q;
      ins2_q <= ins1_q;
      if (rec_done_i && rec_any_q) valid_q <= keep;
      if (ins1_q) slot_q <= slot;
      use_q <= use_i;
      for (int i = 0; i < N; i++) begin
        if (ins2_q && slot_q[i]) begin
          valid_q[i]             <= 1'b1;
          base_q[i * UW +: UW]   <= rec_lo_q;
          end_q[i * UW +: UW]    <= rec_hi_q + 1'b1;
          dst_lo_q[i * AW +: AW] <= rec_dst_lo_q;
          dst_hi_q[i * AW +: AW] <= rec_dst_hi_q;
          src_lo_q[i * SW +: SW] <= rec_src_lo_q;
          src_hi_q[i * SW +: SW] <= rec_src_hi_q;
        end
        if (touch && touched[i]) begin
          rank_q[i * RankW +: RankW] <= '0;
        end else if (touch && rank_q[i * RankW +: RankW] < touched_rank) begin
          rank_q[i * RankW +: RankW] <= rank_q[i * RankW +: RankW] + 1'b1;
        end
      end
    end
  end

  // what the stage promises: nothing recorded while the table inserts, a load's words written at
  // consecutive indices and none in its completion's cycle, no use while the table inserts
  `VTA_ASSERT_NEVER(RecordsWhileInserting, busy_o && (rec_start_i || rec_we_i || rec_done_i))
  `VTA_ASSERT_NEVER(WritesOutOfOrder, rec_we_i && rec_any_q && UW'(rec_addr_i) != rec_hi_q + 1'b1)
  `VTA_ASSERT_NEVER(WritesAtStartOrCompletion, (rec_start_i || rec_done_i) && rec_we_i)
  `VTA_ASSERT_NEVER(UsesWhileInserting, busy_o && |use_i)
  `VTA_ASSERT_NEVER(TwoEntriesHit, !$onehot0(hit_o))
  `VTA_ASSERT_NEVER(TwoEntriesUsed, !$onehot0(use_i))
  `VTA_ASSERT_NEVER(UseMeetsInsertion, ins2_q && |use_q)
  `VTA_ASSERT(OneLeastRecent, $onehot(least_recent))
  `VTA_COVER(ReplacesTheLeastRecent, ins1_q && !free_found)
`ifdef VTA_FORMAL
  `include "vta_uop_table_formal.svh"  // its proofs (hw/formal, docs/FORMAL.md)
`endif
endmodule : vta_uop_table
