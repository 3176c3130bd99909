// SPDX-License-Identifier: GPL-2.0-only
/* Plotting primitives for the HTML report (svg.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "svg.h"
#include "util/util.h"

#define MARGIN_LEFT	58
#define MARGIN_RIGHT	14
#define MARGIN_TOP	12
#define MARGIN_BOTTOM	40

const char *lh_svg_color(size_t i)
{
	/* Tableau 10 without its red */
	static const char *const palette[] = {
		"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
		"#bcbd22", "#17becf",
	};

	return palette[i % LH_ARRAY_SIZE(palette)];
}

static double frac(const struct lh_svg_axis *a, double v)
{
	double f;

	if (a->log) {
		if (v < a->lo)
			v = a->lo;
		f = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	} else {
		f = (v - a->lo) / (a->hi - a->lo);
	}
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

double lh_svg_x(const struct lh_svg_chart *c, double v)
{
	return c->left + frac(&c->x, v) * (c->right - c->left);
}

double lh_svg_y(const struct lh_svg_chart *c, double v)
{
	return c->bottom - frac(&c->y, v) * (c->bottom - c->top);
}

/* A tick's label: 2.5, 1k, 10M... of v / div, then the unit. */
static void tick_label(const struct lh_svg_axis *a, double v, char *buf, size_t len)
{
	double d = v / (a->div > 0 ? a->div : 1);
	const char *unit = a->unit ? a->unit : "";

	if (fabs(d) >= 1e6)
		snprintf(buf, len, "%gM%s", d / 1e6, unit);
	else if (fabs(d) >= 1e4)
		snprintf(buf, len, "%gk%s", d / 1e3, unit);
	else
		snprintf(buf, len, "%g%s", fabs(d) < 1e-9 ? 0 : d, unit);
}

/* Return: a 1-2-5 step that cuts [lo, hi] into about n parts. */
static double nice_step(double lo, double hi, double n)
{
	double raw = (hi - lo) / n, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return mag * (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10);
}

static void tick(struct lh_svg_chart *c, bool vertical, double v)
{
	char label[32];
	double px;

	tick_label(vertical ? &c->y : &c->x, v, label, sizeof(label));
	if (vertical) {
		px = lh_svg_y(c, v);
		fprintf(c->out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			c->left, px, c->right, px, c->left - 5, px + 4, label);
	} else {
		px = lh_svg_x(c, v);
		fprintf(c->out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			px, c->top, px, c->bottom, px, c->bottom + 15, label);
	}
}

/* Grid lines, ticks and their labels along one axis: decades, or 1-2-5 steps. */
static void ticks(struct lh_svg_chart *c, bool vertical)
{
	const struct lh_svg_axis *a = vertical ? &c->y : &c->x;
	double v, step;
	int k;

	if (a->log) {
		for (k = (int)floor(log10(a->lo)); k <= (int)ceil(log10(a->hi)); k++) {
			v = pow(10, k);
			if (v >= a->lo * 0.999 && v <= a->hi * 1.001)
				tick(c, vertical, v);
		}
		return;
	}
	/* about one tick per 90 px across, per 50 px up */
	step = nice_step(a->lo, a->hi, vertical ? (c->bottom - c->top) / 50 :
					  (c->right - c->left) / 90);
	for (v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9; v += step)
		tick(c, vertical, v);
}

void lh_svg_begin(struct lh_svg_chart *c, FILE *out, double width, double height,
		  const struct lh_svg_axis *x, const struct lh_svg_axis *y, const char *cls,
		  const char *title)
{
	memset(c, 0, sizeof(*c));
	c->out = out;
	c->width = width;
	c->height = height;
	c->left = MARGIN_LEFT;
	c->right = width - MARGIN_RIGHT;
	c->top = MARGIN_TOP;
	c->bottom = height - MARGIN_BOTTOM;
	c->x = *x;
	c->y = *y;
	if (!(c->x.hi > c->x.lo))
		c->x.hi = c->x.lo + 1;
	if (!(c->y.hi > c->y.lo))
		c->y.hi = c->y.lo + 1;
	fprintf(out, "<svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
		"aria-label=\"", cls, width, height, width, height);
	lh_escape_xml(out, title);
	fputs("\"><title>", out);
	lh_escape_xml(out, title);
	fputs("</title>\n", out);
	fprintf(out, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
		c->left, c->top, c->right - c->left, c->bottom - c->top);
	ticks(c, false);
	ticks(c, true);
	fprintf(out, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		(c->left + c->right) / 2, height - 6);
	lh_escape_xml(out, c->x.label);
	fprintf(out, "</text>\n<text class=\"axis-label\" transform=\"translate(14 %.1f) "
		"rotate(-90)\" text-anchor=\"middle\">", (c->top + c->bottom) / 2);
	lh_escape_xml(out, c->y.label);
	fputs("</text>\n", out);
}

void lh_svg_end(struct lh_svg_chart *c)
{
	fprintf(c->out, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n"
		"</svg>\n", c->left, c->top, c->right - c->left, c->bottom - c->top);
}

void lh_svg_outline(struct lh_svg_chart *c, const double *lo, const double *hi,
		    const double *y, size_t n, const char *color, const char *cls)
{
	size_t i;

	if (!n)
		return;
	fprintf(c->out, "<path class=\"%s\" stroke=\"%s\" d=\"", cls, color);
	for (i = 0; i < n; i++) {
		if (!i || hi[i - 1] < lo[i])
			fprintf(c->out, "M%.1f %.1f", lh_svg_x(c, lo[i]), c->bottom);
		fprintf(c->out, "V%.1fH%.1f", lh_svg_y(c, y[i]), lh_svg_x(c, hi[i]));
		if (i + 1 == n || hi[i] < lo[i + 1])
			fprintf(c->out, "V%.1f", c->bottom);
	}
	fputs("\"/>\n", c->out);
}

void lh_svg_stairs(struct lh_svg_chart *c, const double *xs, const double *ys, size_t n,
		   double x_end, const char *color, const char *cls)
{
	size_t i;

	if (!n)
		return;
	fprintf(c->out, "<path class=\"%s\" stroke=\"%s\" d=\"M%.1f %.1f", cls, color,
		lh_svg_x(c, xs[0]), lh_svg_y(c, ys[0]));
	for (i = 1; i < n; i++)
		fprintf(c->out, "H%.1fV%.1f", lh_svg_x(c, xs[i]), lh_svg_y(c, ys[i]));
	fprintf(c->out, "H%.1f\"/>\n", lh_svg_x(c, x_end));
}

void lh_svg_marker(struct lh_svg_chart *c, double x, double y, const char *color,
		   const char *title)
{
	fprintf(c->out, "<circle class=\"marker\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">",
		lh_svg_x(c, x), lh_svg_y(c, y), color);
	if (title) {
		fputs("<title>", c->out);
		lh_escape_xml(c->out, title);
		fputs("</title>", c->out);
	}
	fputs("</circle>\n", c->out);
}

static void ref_line(struct lh_svg_chart *c, double x1, double y1, double x2, double y2,
		     const char *color, const char *cls, const char *label, double lx, double ly,
		     const char *anchor)
{
	fprintf(c->out, "<line class=\"%s\" stroke=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n", cls, color, x1, y1, x2, y2);
	if (!label)
		return;
	fprintf(c->out, "<text class=\"ref-label\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"%s\">", color, lx, ly, anchor);
	lh_escape_xml(c->out, label);
	fputs("</text>\n", c->out);
}

void lh_svg_vline(struct lh_svg_chart *c, double x, const char *color, const char *cls,
		  const char *label)
{
	double px = lh_svg_x(c, x);
	bool right = px > (c->left + c->right) / 2;

	ref_line(c, px, c->top, px, c->bottom, color, cls, label, px + (right ? -4 : 4),
		 c->top + 12, right ? "end" : "start");
}

void lh_svg_hline(struct lh_svg_chart *c, double y, const char *color, const char *cls,
		  const char *label)
{
	double py = lh_svg_y(c, y);

	ref_line(c, c->left, py, c->right, py, color, cls, label, c->left + 4, py - 4, "start");
}

void lh_svg_legend(struct lh_svg_chart *c, const char *const *names, const char *const *colors,
		   size_t n)
{
	double x = c->right - 8, y = c->top + 28;
	size_t i;

	for (i = 0; i < n; i++, y += 15) {
		fprintf(c->out, "<g class=\"legend\"><line stroke=\"%s\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			colors[i], x - 16, y - 4, x, y - 4, x - 20, y);
		lh_escape_xml(c->out, names[i]);
		fputs("</text></g>\n", c->out);
	}
}
