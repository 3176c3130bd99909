# SPDX-License-Identifier: GPL-2.0-only
# The libraries lathound links and the features they turn on, included by the Makefile and
# tests/fuzz/Makefile: the fuzz targets are built from the same choice as lathound.
PKG_CONFIG	?= pkg-config
PKGS		:= libtracecmd libtracefs libtraceevent libpcre2-8 json-c zlib
# Vectorscan (libhs), the rules' prefilter (lathound-rules(1)): used when pkg-config finds
# it; VECTORSCAN=no builds without (rules then run on PCRE2 alone, as 'lathound --version'
# says).
VECTORSCAN	?= $(shell $(PKG_CONFIG) --exists libhs && echo yes || echo no)
ifeq ($(VECTORSCAN),yes)
PKGS		+= libhs
HS_CFLAGS	:= -DLH_HAVE_VECTORSCAN
endif
# 64-bit file offsets, inode numbers and time_t on 32-bit targets too (armhf): without them
# readdir() and stat() fail with EOVERFLOW on today's file systems and times wrap in 2038.
# No effect on 64-bit targets; none of the libraries above has off_t or time_t in its API.
PORT_CFLAGS	:= -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
