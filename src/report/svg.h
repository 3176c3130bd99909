/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Plotting primitives for the HTML report: a chart is an inline <svg> with a plot area,
 * axes (linear, or log10 for counts) with ticks and grid, and series drawn as step lines,
 * markers and reference lines (a budget). Every text goes through lh_escape_xml(). Pure:
 * writes to a FILE *, keeps no state beyond the chart's struct.
 */
#ifndef LH_SVG_H
#define LH_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct lh_svg_axis {
	double		lo;
	double		hi;		/* > lo; a log axis needs lo > 0 */
	bool		log;		/* log10 */
	const char	*label;		/* trusted text */
	/* tick labels: "%g" of the value divided by this, then the unit (may be NULL) */
	double		div;
	const char	*unit;
};

struct lh_svg_chart {
	FILE			*out;
	double			width;
	double			height;
	double			left, right, top, bottom;	/* the plot area, in px */
	struct lh_svg_axis	x;
	struct lh_svg_axis	y;
};

/*
 * Starts a chart of width x height px whose axes are x and y (copied): <svg> with a
 * <title> (title, escaped), the frame, grid, ticks and axis labels. class names the
 * chart for the page's CSS and for tests.
 */
void lh_svg_begin(struct lh_svg_chart *c, FILE *out, double width, double height,
		  const struct lh_svg_axis *x, const struct lh_svg_axis *y, const char *cls,
		  const char *title);
/* Ends it: </svg>. */
void lh_svg_end(struct lh_svg_chart *c);

/* Return: the px position of value v on the x or y axis, clamped to the plot area. */
double lh_svg_x(const struct lh_svg_chart *c, double v);
double lh_svg_y(const struct lh_svg_chart *c, double v);

/*
 * A histogram's outline, as latency plots draw them: bucket i spans [lo[i], hi[i]) at
 * height y[i]; the line drops to the axis where buckets are not adjacent and at both ends.
 * color is a CSS color, cls a class (e.g. "series cpu0").
 */
void lh_svg_outline(struct lh_svg_chart *c, const double *lo, const double *hi,
		    const double *y, size_t n, const char *color, const char *cls);
/* A staircase through (xs[i], ys[i]): level until the next x, then up or down; to x_end. */
void lh_svg_stairs(struct lh_svg_chart *c, const double *xs, const double *ys, size_t n,
		   double x_end, const char *color, const char *cls);
/* A marker (circle) at each point; title (escaped, may be NULL) on each. */
void lh_svg_marker(struct lh_svg_chart *c, double x, double y, const char *color,
		   const char *title);
/* A reference line across the plot at x (vertical) or y (horizontal), with a label. */
void lh_svg_vline(struct lh_svg_chart *c, double x, const char *color, const char *cls,
		  const char *label);
void lh_svg_hline(struct lh_svg_chart *c, double y, const char *color, const char *cls,
		  const char *label);
/* A legend in the plot's top right: name i (escaped) in color i. */
void lh_svg_legend(struct lh_svg_chart *c, const char *const *names, const char *const *colors,
		   size_t n);

/* Return: the i-th color of the series palette (red is kept for budgets). Static. */
const char *lh_svg_color(size_t i);
#define LH_SVG_BUDGET_COLOR	"#d62728"

#endif /* LH_SVG_H */
