// vta_fifo_head's proofs: its registered form (the one synthesis reads) against the reference queue
// that vta_fifo's set holds vta_fifo to, with the same promises at the ports. vta_fifo is the form a
// simulator runs in its place (vta_fifo_head.sv), so the two proofs together make the two forms equal
// at the ports in every reachable state: the same ready, valid, count, and data in the same order.
`include "vta_formal.svh"

// ---- the reference queue and vta_fifo's promises against it, word for word --------------------------
`include "vta_queue_model.svh"

// ---- strengthening invariants ---------------------------------------------------------------------
// The rest holds the entries after the head, the oldest at its read side (with a rest of one entry,
// Depth 2, its ports show all it holds; deeper rests are vta_fifo's own proofs' concern).
`VTA_PROVE(HeadCountAgrees, 32'(rest_count) + 32'(head_valid_q) == 32'(f_count_q))
`VTA_PROVE_IMPLIES(RestEntryAgrees, rest_valid, rest_head == f_model_q[Width +: Width])

// ---- reachable ------------------------------------------------------------------------------------
`VTA_REACH(HeadFull, !wready_o && wvalid_i)
`VTA_REACH(HeadRefilledFromRest, rest_read)
`VTA_REACH(HeadWrittenWhileRead, to_head && do_read)
