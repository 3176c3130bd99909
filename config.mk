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
