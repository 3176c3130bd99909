# SPDX-License-Identifier: GPL-2.0-only
# lathound doctor on a kernel that has every latency tracer: must find nothing missing.
rec doctor doctor
cp /proc/config.gz config.gz 2>/dev/null
