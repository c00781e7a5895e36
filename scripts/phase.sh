# Sourced by run.sh and test.sh: `phase NAME` ends the current phase (printing how long it took) and
# announces the next; `phase ""` ends the last one.
t0=$SECONDS
phase_name=""
phase_start=$SECONDS
phase() {
  if [ -n "$phase_name" ]; then
    echo "${0##*/}: -- $phase_name: $((SECONDS - phase_start)) s (total $((SECONDS - t0)) s)"
  fi
  phase_name=$1
  phase_start=$SECONDS
  if [ -n "$phase_name" ]; then echo "${0##*/}: -- $phase_name"; fi
}
