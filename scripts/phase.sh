# Sourced by run.sh and test.sh: `phase NAME` ends the current phase (printing how long it took) and
# announces the next; `phase ""` ends the last one. `phase_summary` prints the phases, longest first.
t0=$SECONDS
phase_name=""
phase_start=$SECONDS
phase_lines=()
phase() {
  if [ -n "$phase_name" ]; then
    echo "${0##*/}: -- $phase_name: $((SECONDS - phase_start)) s (total $((SECONDS - t0)) s)"
    phase_lines+=("$((SECONDS - phase_start)) s  $phase_name")
  fi
  phase_name=$1
  phase_start=$SECONDS
  if [ -n "$phase_name" ]; then echo "${0##*/}: -- $phase_name"; fi
}

phase_summary() {
  echo "${0##*/}: the phases, longest first (total $((SECONDS - t0)) s):"
  printf '%s\n' "${phase_lines[@]}" | sort -rn | sed 's/^/  /'
}
