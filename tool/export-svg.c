/*
 * export-svg.c - an interactive flame graph in one SVG file, drawn by
 * fntrace itself: one <g> per call-tree node (rectangle, clipped label,
 * <title> with time, percent and calls), laid out by width (each node as
 * wide as its inclusive time, or its calls with --value calls), children in
 * call order.  Frames narrower than 0.1 pixel at full width are left out
 * (their time stays in their parent's width).  An inline script, no
 * network, adds hover details, click to zoom into a frame, reset, and a
 * search hook the html page uses; without scripts the file is still a
 * correct static picture.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/export.h"
#include "tool/outbuf.h"
#include "tool/flame.h"

#define FRAME_H 16
#define PAD 10
#define TOP 34
#define BOTTOM 26

void flame_xml_str(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + strlen(s);
	while (u < end) {
		const char *run = (const char *)u, *rep;
		size_t used, len;
		/* the bytes that need nothing: printable ASCII but the five */
		while (u < end && *u >= 0x20 && *u < 0x7f && !strchr("&<>\"'", *u))
			u++;
		fwrite(run, 1, (size_t)((const char *)u - run), out);
		if (u == end)
			break;
		switch (*u) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if (*u < 0x20 || *u == 0x7f) {
				rep = "?";
				break;
			}
			/* >= 0x80: a UTF-8 character, or U+FFFD for a byte of none */
			rep = utf8_char(u, end, &used, &len);
			fwrite(rep, 1, len, out);
			u += used;
			continue;
		}
		fputs(rep, out);
		u++;
	}
}

const char *flame_default_title(struct view *v, char *buf, size_t len)
{
	struct trace *t = v->trace;
	size_t k = 0;
	if (t->session_command && *t->session_command)
		return t->session_command;
	buf[0] = 0;
	if (t->n_procs)
		for (int i = 0; i < t->procs[0].argc && k + 2 < len; i++)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " " : "", t->procs[0].argv[i]);
	return buf[0] ? buf : "fntrace";
}

/* warm colours, the same for a name every time */
static void color_of(const char *name, char *buf, size_t len)
{
	uint32_t h = 2166136261u;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(buf, len, "rgb(%u,%u,%u)", 205 + (h & 31), 80 + (h >> 8) % 130, 30 + (h >> 16) % 50);
}

static const char flame_js[] =
"(function(){\n"
"var svg=document.currentScript.ownerSVGElement||document.currentScript.parentNode;\n"
"var W=+svg.getAttribute('data-fw'),P=+svg.getAttribute('data-pad');\n"
"var det=svg.querySelector('.fnt-details'),rst=svg.querySelector('.fnt-reset'),ttl=svg.querySelector('.fnt-title');\n"
"var srch=svg.querySelector('.fnt-search'),mt=svg.querySelector('.fnt-matched'),searched=false;\n"
"var fs=[].slice.call(svg.querySelectorAll('g.fnt-f')),zoomed=null;\n"
"fs.forEach(function(g){g.x0=+g.getAttribute('data-x');g.w0=+g.getAttribute('data-w');\n"
" g.d=+g.getAttribute('data-d');g.r=g.firstElementChild.nextElementSibling;g.t=g.lastElementChild;\n"
" g.nm=g.getAttribute('data-n');g.tip=g.firstElementChild.textContent;\n"
" g.addEventListener('mouseover',function(){det.textContent=g.tip;});\n"
" g.addEventListener('mouseout',function(){det.textContent=' ';});\n"
" g.addEventListener('click',function(e){zoom(g);e.stopPropagation();});});\n"
"function label(g,w){var n=Math.floor((w-6)/7.2);\n"
" g.t.textContent=n<3?'':(g.nm.length<=n?g.nm:g.nm.slice(0,n-2)+'..');}\n"
"function place(g,x,w){g.style.display='';g.r.setAttribute('x',(P+x).toFixed(2));\n"
" g.r.setAttribute('width',Math.max(w-0.5,0.1).toFixed(2));g.t.setAttribute('x',(P+x+3).toFixed(2));label(g,w);}\n"
"function zoom(z){zoomed=z;var zx=z.x0,zw=z.w0,e=zw*1e-9;\n"
" fs.forEach(function(g){if(g.x0+e>=zx&&g.x0+g.w0<=zx+zw+e&&g.d>=z.d){place(g,(g.x0-zx)/zw*W,g.w0/zw*W);g.classList.remove('fnt-anc');}\n"
"  else if(g.d<z.d&&g.x0<=zx+e&&g.x0+g.w0+e>=zx+zw){place(g,0,W);g.classList.add('fnt-anc');}\n"
"  else g.style.display='none';});\n"
" rst.style.display='';svg.setAttribute('data-zoomed',z.nm);}\n"
"function unzoom(){zoomed=null;fs.forEach(function(g){place(g,g.x0*W,g.w0*W);g.classList.remove('fnt-anc');});\n"
" rst.style.display='none';svg.removeAttribute('data-zoomed');}\n"
"rst.addEventListener('click',function(e){unzoom();e.stopPropagation();});\n"
/* search hook: a RegExp or null; returns the matching frames' share of the width */
"svg.fntSearch=function(re){var iv=[],cover=0,end=-1;fs.forEach(function(g){var m=!!(re&&re.test(g.nm));\n"
" g.classList.toggle('fnt-match',m);if(m)iv.push([g.x0,g.x0+g.w0]);});\n"
" iv.sort(function(a,b){return a[0]-b[0];});iv.forEach(function(a){if(a[1]>end){cover+=a[1]-Math.max(a[0],end);end=a[1];}});\n"
" mt.textContent=re?'Matched: '+(100*cover).toFixed(1)+'%':' ';srch.textContent=re?'Reset search':'Search';\n"
" if(re)svg.setAttribute('data-matched',(100*cover).toFixed(2));else svg.removeAttribute('data-matched');\n"
" searched=!!re;return cover;};\n"
/* the search box: a regular expression, or plain text when it is not a valid one */
"function toRe(q){try{return new RegExp(q);}catch(e){return new RegExp(q.replace(/[.*+?^${}()|[\\]\\\\]/g,'\\\\$&'));}}\n"
"svg.fntSearchText=function(q){return svg.fntSearch(q?toRe(q):null);};\n"
"function ask(){var q=window.prompt('Search (regular expression or text):','');if(q)svg.fntSearchText(q);}\n"
"srch.addEventListener('click',function(e){if(searched)svg.fntSearch(null);else ask();e.stopPropagation();});\n"
"if(svg.getAttribute('data-standalone'))window.addEventListener('keydown',function(e){\n"
" if((e.ctrlKey&&e.key==='f')||e.key==='/'){e.preventDefault();ask();}});\n"
/* the width follows the window: one user unit is one pixel, frames are re-laid out and labels trimmed again */
"function fit(){var cw=Math.round(svg.getBoundingClientRect().width);if(!(cw>2*P+50))return;\n"
" W=cw-2*P;svg.setAttribute('viewBox','0 0 '+cw+' '+svg.getAttribute('height'));svg.setAttribute('data-fw',W);\n"
" ttl.setAttribute('x',cw/2);srch.setAttribute('x',cw-P);mt.setAttribute('x',cw-P);\n"
" if(zoomed)zoom(zoomed);else fs.forEach(function(g){place(g,g.x0*W,g.w0*W);});}\n"
"window.addEventListener('resize',fit);fit();\n"
"svg.fntZoom=function(name){for(var i=0;i<fs.length;i++)if(fs[i].nm===name){zoom(fs[i]);return true;}return false;};\n"
"svg.fntReset=unzoom;\n"
"})();\n";

static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	char tmp[32];
	format_duration(tmp, sizeof(tmp), ns);
	const char *p = tmp;
	while (*p == ' ')
		p++;
	snprintf(buf, len, "%s", p);
}

size_t flame_svg(struct view *v, struct calltree *t, const struct flame_opts *fo, FILE *out)
{
	uint64_t *x = xcalloc(t->len, sizeof(*x)), *next = xcalloc(t->len, sizeof(*next));
	uint8_t *drawn = xcalloc(t->len, 1);
	uint64_t total = 0;
	uint32_t max_depth = 0;
	size_t frames = 0;
	double W = fo->width - 2 * PAD, min_w;
	char col[32], dur[32];
	int height;

	/* weights: inclusive time, or the calls of the whole subtree */
	for (uint32_t i = 1; i < t->len; i++)
		t->n[i].weight = fo->value_calls ? t->n[i].calls : t->n[i].total;
	if (fo->value_calls)
		for (uint32_t i = t->len - 1; i > 0; i--)
			if (t->n[i].parent)
				t->n[t->n[i].parent].weight += t->n[i].weight;
	for (uint32_t c = t->n[0].first_child; c != CT_NONE; c = t->n[c].next)
		total += t->n[c].weight;
	t->n[0].weight = total;
	/* a parent always has a lower index than its children, and siblings
	 * are created in call order: one pass lays them out left to right */
	min_w = total ? (double)total * 0.1 / W : 1;
	size_t n_labels;
	char **labels = calltree_labels(v, t, &n_labels);
	drawn[0] = 1;
	for (uint32_t i = 1; i < t->len; i++) {
		uint32_t p = t->n[i].parent;
		x[i] = next[p] + (p ? x[p] : 0);
		next[p] += t->n[i].weight;
		next[i] = 0;
		if (drawn[p] && t->n[i].weight && (double)t->n[i].weight >= min_w) {
			drawn[i] = 1;
			if (t->n[i].depth > max_depth)
				max_depth = t->n[i].depth;
		}
	}
	height = TOP + (int)(max_depth + 1) * FRAME_H + BOTTOM;
	if (fo->standalone)
		fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n", out);
	/* width 100%: the script lays the frames out again for the window's width */
	fprintf(out, "<svg version=\"1.1\" width=\"100%%\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" class=\"fnt-flame\" data-fw=\"%.0f\" data-pad=\"%d\"%s>\n",
		height, fo->width, height, W, PAD, fo->standalone ? " data-standalone=\"1\"" : "");
	fputs("<style>.fnt-flame text{font-family:monospace;font-size:12px}"
	      ".fnt-f{cursor:pointer}.fnt-f text{pointer-events:none;fill:#000}"
	      ".fnt-f:hover rect{stroke:#000;stroke-width:0.5}.fnt-anc{opacity:0.6}"
	      ".fnt-match rect{fill:rgb(230,0,230)!important}.fnt-reset,.fnt-search{cursor:pointer;fill:#06c}"
	      ".fnt-search,.fnt-matched{text-anchor:end}"
	      ".fnt-title{font-size:16px!important;text-anchor:middle}</style>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f4\"/>\n");
	fprintf(out, "<text class=\"fnt-title\" x=\"%d\" y=\"22\">", fo->width / 2);
	flame_xml_str(out, fo->title);
	fprintf(out, "</text>\n<text class=\"fnt-reset\" x=\"%d\" y=\"22\" style=\"display:none\">Reset zoom</text>\n",
		PAD);
	fprintf(out, "<text class=\"fnt-search\" x=\"%d\" y=\"22\">Search</text>\n", fo->width - PAD);
	fprintf(out, "<text class=\"fnt-details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, height - 8);
	fprintf(out, "<text class=\"fnt-matched\" x=\"%d\" y=\"%d\"> </text>\n", fo->width - PAD, height - 8);
	for (uint32_t i = 1; i < t->len; i++) {
		struct ct_node *n = &t->n[i];
		if (!drawn[i])
			continue;
		const char *name = calltree_label(v, labels, n_labels, n->func);   /* overloads told apart */
		double fx = total ? (double)x[i] / (double)total : 0, fw = total ? (double)n->weight / (double)total : 0;
		double px = PAD + fx * W, pw = fw * W;
		int y = fo->inverted ? TOP + (int)n->depth * FRAME_H : height - BOTTOM - (int)(n->depth + 1) * FRAME_H;
		size_t nl = strlen(name), fit = pw > 6 ? (size_t)((pw - 6) / 7.2) : 0;

		frames++;
		fputs("<g class=\"fnt-f\" data-n=\"", out);
		flame_xml_str(out, name);
		fprintf(out, "\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\"><title>", fx, fw, n->depth);
		flame_xml_str(out, name);
		if (fo->value_calls) {
			/* (the width: the calls of its whole subtree; its own apart) */
			fprintf(out, " (%" PRIu64 " call%s, %" PRIu64 " with its callees, %.2f%%)", n->calls,
				n->calls == 1 ? "" : "s", n->weight, fw * 100);
		} else {
			fmt_ns(dur, sizeof(dur), n->total);
			fprintf(out, " (%s, %.2f%%, %" PRIu64 " call%s, self ", dur, fw * 100, n->calls,
				n->calls == 1 ? "" : "s");
			fmt_ns(dur, sizeof(dur), n->self);
			fprintf(out, "%s)", dur);
		}
		color_of(name, col, sizeof(col));
		fprintf(out, "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
			"<text x=\"%.2f\" y=\"%d\">", px, y, pw > 0.6 ? pw - 0.5 : 0.1, FRAME_H - 1, col, px + 3,
			y + FRAME_H - 4);
		if (fit >= 3) {
			if (nl <= fit) {
				flame_xml_str(out, name);
			} else {
				char *cut = xstrdup(name);
				size_t k = fit - 2;
				while (k > 0 && ((unsigned char)cut[k] & 0xc0) == 0x80)
					k--;         /* not inside a UTF-8 character */
				cut[k] = 0;
				flame_xml_str(out, cut);
				fputs("..", out);
				free(cut);
			}
		}
		fputs("</text></g>\n", out);
	}
	fprintf(out, "<script type=\"text/javascript\"><![CDATA[\n%s]]></script>\n</svg>\n", flame_js);
	view_labels_free(labels, n_labels);
	free(x);
	free(next);
	free(drawn);
	return frames;
}

int export_svg(struct view *v, const struct export_opts *o, FILE *out)
{
	struct calltree t;
	struct calltree_build b = { .tree = &t, .mode = CT_ALL, .no_collapse = o->no_collapse };
	struct flame_opts fo = { .value_calls = o->value_calls, .inverted = o->inverted, .width = 1200,
				 .standalone = 1 };
	char buf[512];

	calltree_init(&t);
	calltree_build(v, &b);
	if (!trace_has_function_events(v->trace)) {
		view_no_events_hint(v);
		calltree_release(&t);
		return -1;
	}
	fo.title = o->title ? o->title : flame_default_title(v, buf, sizeof(buf));
	flame_svg(v, &t, &fo, out);
	calltree_release(&t);
	return 0;
}
