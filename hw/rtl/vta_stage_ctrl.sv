// The control the three stages share (load, compute, store; spec 4.1): one instruction at a time.
//
// Idle: when the head instruction may go (vta_insn_head: its pops have tokens, its pushes room) the
// stage takes it and pops the tokens it asks for. An instruction fetch found illegal stops the stage
// for good (error_o until reset). One with no work for a unit (at_once_i: a FINISH, a load of nothing)
// completes in that cycle: only its tokens act, its pushes go at once. Any other starts the stage's
// unit (start_o) and the stage runs: when the unit is no longer busy it either reports the unit's
// error (stopped as above) or completes (done_o), pushing the tokens the instruction asked for.
//
// HasPrev / HasNext: whether the stage exchanges tokens with a previous / next stage (load has no
// previous one, store no next one); the flags for a missing neighbour are ignored. The pushes a
// running instruction will make are visible (push_prev_q_o): the store waits on them.
module vta_stage_ctrl
  import vta_pkg::*;
#(
  parameter bit HasPrev = 1'b1,
  parameter bit HasNext = 1'b1
) (
  input  logic  clk_i,
  input  logic  rst_ni,
  input  logic  go_i,          // the head instruction may start (vta_insn_head's go_o; only read while idle)
  input  deps_t deps_i,        // its dependency flags
  input  logic  legal_i,       // fetch's verdict on it (vta_insn_check)
  input  logic  at_once_i,     // it has no work for a unit: only its tokens act
  input  logic  unit_busy_i,   // while running: the unit (or what the stage waits for) is not done
  input  logic  unit_error_i,  // with !unit_busy_i while running: the unit stopped on an error
  output logic  idle_o,
  output logic  run_o,
  output logic  error_o,
  output logic  take_o,        // the instruction is taken this cycle (the queue's ready)
  output logic  start_o,       // the unit starts on it this cycle
  output logic  done_o,        // a started instruction completed this cycle
  output logic  pop_prev_o,
  output logic  pop_next_o,
  output logic  push_prev_o,
  output logic  push_next_o,
  output logic  push_prev_q_o  // the running instruction pushes to the previous stage when it completes
);
  typedef enum logic [1:0] {StIdle, StRun, StError} state_e;
  state_e state_d, state_q;
  logic   push_prev_d, push_prev_q, push_next_d, push_next_q;

  always_comb begin
    state_d     = state_q;
    push_prev_d = push_prev_q;
    push_next_d = push_next_q;
    take_o      = 1'b0;
    start_o     = 1'b0;
    done_o      = 1'b0;
    pop_prev_o  = 1'b0;
    pop_next_o  = 1'b0;
    push_prev_o = 1'b0;
    push_next_o = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (go_i) begin
          take_o      = 1'b1;
          pop_prev_o  = HasPrev && deps_i.pop_prev;
          pop_next_o  = HasNext && deps_i.pop_next;
          push_prev_d = HasPrev && deps_i.push_prev;
          push_next_d = HasNext && deps_i.push_next;
          if (!legal_i) begin
            state_d = StError;
          end else if (at_once_i) begin
            push_prev_o = HasPrev && deps_i.push_prev;
            push_next_o = HasNext && deps_i.push_next;
          end else begin
            start_o = 1'b1;
            state_d = StRun;
          end
        end
      end
      StRun: begin
        if (!unit_busy_i) begin
          if (unit_error_i) begin
            state_d = StError;
          end else begin
            push_prev_o = push_prev_q;
            push_next_o = push_next_q;
            done_o      = 1'b1;
            state_d     = StIdle;
          end
        end
      end
      default: ;  // StError: stopped until reset
    endcase
    idle_o        = state_q == StIdle;
    run_o         = state_q == StRun;
    error_o       = state_q == StError;
    push_prev_q_o = push_prev_q;
  end

  // (the flags of a missing neighbour: spec 4.1 ignores them)
  logic unused_deps;
  assign unused_deps = ^{HasPrev ? 2'b0 : {deps_i.pop_prev, deps_i.push_prev},
                         HasNext ? 2'b0 : {deps_i.pop_next, deps_i.push_next}};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      push_prev_q <= 1'b0;
      push_next_q <= 1'b0;
    end else begin
      state_q     <= state_d;
      push_prev_q <= push_prev_d;
      push_next_q <= push_next_d;
    end
  end
endmodule : vta_stage_ctrl
