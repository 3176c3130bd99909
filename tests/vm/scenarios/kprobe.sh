# SPDX-License-Identifier: GPL-2.0-only
# --kprobe on the driver's interrupt handler: its hit lands inside the captured section.
knobs before
rec kprobe record -t irqsoff --kprobe "p:lhx_hit lhx_fakeraid_irq" -o "$OUT/kprobe" \
	-r "$RULES" -- \
	lhx-inject fakeraid 2000
knobs after

# Injected definitions: a second line (another group's probe added, or removed), or another
# group outright. Each is refused before anything is written: another tool's probe stays,
# and nothing else appears in kprobe_events.
echo 'p:kprobes/victim vfs_read' >>"$T/kprobe_events"
cat "$T/kprobe_events" >"$OUT/inject.before"
rec kprobe_add2 record -t irqsoff -o "$OUT/kprobe_add2" \
	--kprobe "$(printf 'p:lathound/x lhx_fakeraid_irq\np:other/evil vfs_read')" -- true
rec kprobe_rm record -t irqsoff -o "$OUT/kprobe_rm" \
	--kprobe "$(printf 'lhx_fakeraid_irq\n-:kprobes/victim')" -- true
rec kprobe_group record -t irqsoff -o "$OUT/kprobe_group" \
	--kprobe 'p:kprobes/evil vfs_read' -- true
cat "$T/kprobe_events" >"$OUT/inject.after"
echo '-:kprobes/victim' >>"$T/kprobe_events"
