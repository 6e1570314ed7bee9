/*
 * export-html.c - one self-contained HTML file (inline CSS and JS, no
 * network) with a per-thread timeline of calls (canvas, zoom and pan), the
 * flame graph (the same SVG as the svg export, inline), the profile table
 * (the numbers of `fntrace report`, sortable) and a search box that
 * highlights matching functions in all three.
 *
 * Big traces: the page must stay usable for millions of events, so the
 * timeline embeds at most SPAN_BUDGET calls, shared out over time: the run
 * is cut into N_SLICES slices of equal length (their length doubles as the
 * trace grows, merging pairs), and each slice keeps the SLICE_KEEP longest
 * calls that start in it (a min-heap by duration).  So a zoomed window
 * anywhere shows the calls of its slices down to their own thresholds:
 * every call where calls are sparse, the longest where they are dense.  (A
 * single threshold for the whole run, as before, dropped the short calls
 * of quiet stretches because of a busy one elsewhere.)  Every call that is
 * not embedded is added instead to a per-thread, per-depth histogram of
 * busy time over N_BUCKETS time buckets, which the page draws as grey
 * density; the page has each slice's threshold for its tooltips.  Memory:
 * the budget, the histograms and the call tree, never the events.
 *
 * Data goes in a <script type="application/json"> block; '<', '>' and '&'
 * in strings are written as \u escapes so no "</script>" can end it early.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool/export.h"
#include "tool/flame.h"
#include "tool/outbuf.h"

#define N_SLICES 512
#define SLICE_KEEP 512           /* calls embedded per slice */
#define SPAN_BUDGET (N_SLICES * SLICE_KEEP)
#define N_BUCKETS 4096
#define AGG_DEPTHS 64            /* timeline rows per thread (deeper calls are counted, not drawn) */

struct span {
	uint64_t start, dur;
	uint32_t func, depth, thread;
};

struct fstat {
	uint64_t calls, timed, total, self, min, max, sum;
};

struct hthread {
	struct trace_thread *th;
	uint32_t index;
	uint32_t *active;            /* open activations per function (recursion) */
	size_t n_active;
	double *agg[AGG_DEPTHS];     /* busy ns per bucket, of calls not embedded */
	uint32_t max_depth;
	uint64_t calls;
};

struct html {
	struct view *v;
	struct span *spans;          /* N_SLICES heaps of SLICE_KEEP, then (at the end) packed */
	uint32_t heap_n[N_SLICES];   /* calls in each slice's heap */
	unsigned slice_shift;        /* a slice is 1 << slice_shift ns */
	size_t n_spans;
	uint64_t threshold;          /* the longest call left out of a full slice (the page's note) */
	uint64_t calls, dropped;
	uint64_t first_ns, last_ns;      /* the calls' time range */
	uint64_t bucket_ns;          /* 1 << bucket_shift */
	unsigned bucket_shift;
	struct hthread **threads;
	size_t n_threads;
	struct fstat *stats;
	size_t n_stats;
};

static struct hthread *hthread_of(struct html *h, struct trace_thread *th)
{
	void **slot = calltree_thread_user(th);
	if (!*slot) {
		struct hthread *t = xcalloc(1, sizeof(*t));
		t->th = th;
		t->index = (uint32_t)h->n_threads;
		h->threads = xrealloc(h->threads, (h->n_threads + 1) * sizeof(*h->threads));
		h->threads[h->n_threads++] = t;
		*slot = t;
	}
	return *slot;
}

static void *grow_zero(void *p, size_t *n, size_t want, size_t size)
{
	if (want < *n)
		return p;
	size_t nn = *n ? *n : 256;
	while (nn <= want)
		nn *= 2;
	p = xrealloc(p, nn * size);
	memset((char *)p + *n * size, 0, (nn - *n) * size);
	*n = nn;
	return p;
}

/* make the buckets cover end: double their width, merging pairs */
static void cover(struct html *h, uint64_t end)
{
	while (end > h->bucket_ns * N_BUCKETS) {
		for (size_t i = 0; i < h->n_threads; i++)
			for (int d = 0; d < AGG_DEPTHS; d++) {
				double *b = h->threads[i]->agg[d];
				if (!b)
					continue;
				for (int k = 0; k < N_BUCKETS / 2; k++)
					b[k] = b[2 * k] + b[2 * k + 1];
				memset(b + N_BUCKETS / 2, 0, N_BUCKETS / 2 * sizeof(*b));
			}
		h->bucket_shift++;
		h->bucket_ns <<= 1;
	}
}

static void aggregate(struct html *h, struct hthread *t, uint32_t depth, uint64_t start, uint64_t dur)
{
	uint64_t end = start + dur, i, last;
	unsigned sh;
	double *b;
	if (depth >= AGG_DEPTHS || !dur)
		return;
	if (end > h->bucket_ns * N_BUCKETS)
		cover(h, end);
	sh = h->bucket_shift;
	if (!t->agg[depth])
		t->agg[depth] = xcalloc(N_BUCKETS, sizeof(double));
	b = t->agg[depth];
	i = start >> sh;
	last = (end - 1) >> sh;
	if (i == last) {                 /* the usual case: a short call in one bucket */
		b[i] += (double)dur;
		return;
	}
	for (; i <= last && i < N_BUCKETS; i++) {
		uint64_t lo = i << sh > start ? i << sh : start, hi = (i + 1) << sh < end ? (i + 1) << sh : end;
		b[i] += (double)(hi - lo);
	}
}

/* the slice heaps: min-heaps by duration, so the shortest kept call of a
 * full slice is the one to drop for a longer one */
static void heap_down(struct span *a, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < n && a[l].dur < a[m].dur)
			m = l;
		if (l + 1 < n && a[l + 1].dur < a[m].dur)
			m = l + 1;
		if (m == i)
			return;
		struct span t = a[i];
		a[i] = a[m];
		a[m] = t;
		i = m;
	}
}

static void heap_up(struct span *a, uint32_t i)
{
	while (i) {
		uint32_t p = (i - 1) / 2;
		if (a[p].dur <= a[i].dur)
			return;
		struct span t = a[i];
		a[i] = a[p];
		a[p] = t;
		i = p;
	}
}

static void drop(struct html *h, const struct span *sp)
{
	aggregate(h, h->threads[sp->thread], sp->depth, sp->start, sp->dur);
	h->dropped++;
	if (sp->dur > h->threshold)
		h->threshold = sp->dur;
}

/* into slice k's heap, or to the density histogram if shorter than all kept */
static void keep(struct html *h, uint32_t k, const struct span *sp)
{
	struct span *a = h->spans + (size_t)k * SLICE_KEEP;
	if (h->heap_n[k] < SLICE_KEEP) {
		a[h->heap_n[k]] = *sp;
		heap_up(a, h->heap_n[k]++);
	} else if (sp->dur > a[0].dur) {
		drop(h, &a[0]);
		a[0] = *sp;
		heap_down(a, SLICE_KEEP, 0);
	} else {
		drop(h, sp);
	}
}

/* the slices must reach `start`: double their length, merging pairs (new
 * slice k is old 2k and 2k+1; slot k's old slice went into slot k/2 at an
 * earlier step, so nothing is overwritten before it is read) */
static void widen(struct html *h, uint64_t start)
{
	while ((start >> h->slice_shift) >= N_SLICES) {
		static struct span tmp[SLICE_KEEP];
		for (uint32_t k = 0; k < N_SLICES / 2; k++) {
			uint32_t a = 2 * k, b = 2 * k + 1, na = h->heap_n[a], nb = h->heap_n[b];
			memcpy(tmp, h->spans + (size_t)b * SLICE_KEEP, nb * sizeof(*tmp));
			if (a != k)
				memcpy(h->spans + (size_t)k * SLICE_KEEP, h->spans + (size_t)a * SLICE_KEEP,
				       na * sizeof(*tmp));
			h->heap_n[k] = na;
			for (uint32_t i = 0; i < nb; i++)
				keep(h, k, &tmp[i]);
		}
		for (uint32_t k = N_SLICES / 2; k < N_SLICES; k++)
			h->heap_n[k] = 0;
		h->slice_shift++;
	}
}

static void on_begin(void *ctx, struct trace_thread *th, const struct frame *f)
{
	struct html *h = ctx;
	struct hthread *t = hthread_of(h, th);
	h->stats = grow_zero(h->stats, &h->n_stats, f->func, sizeof(*h->stats));
	t->active = grow_zero(t->active, &t->n_active, f->func, sizeof(*t->active));
	h->stats[f->func].calls++;
	t->active[f->func]++;
}

static void on_end(void *ctx, struct trace_thread *th, const struct frame *f, uint64_t end_ns, enum call_end how)
{
	struct html *h = ctx;
	struct hthread *t = hthread_of(h, th);
	struct fstat *s = &h->stats[f->func];
	uint64_t dur = end_ns > f->start_ns ? end_ns - f->start_ns : 0;
	uint32_t depth = f->depth > 0 ? (uint32_t)f->depth : 0;

	(void)how;
	/* the profile: as `fntrace report` counts it */
	t->active[f->func]--;
	if (!s->timed || dur < s->min)
		s->min = dur;
	if (dur > s->max)
		s->max = dur;
	s->timed++;
	s->sum += dur;
	s->self += dur > f->child_ns ? dur - f->child_ns : 0;
	if (!t->active[f->func])
		s->total += dur;
	/* the timeline */
	if (!h->calls || f->start_ns < h->first_ns)
		h->first_ns = f->start_ns;
	if (end_ns > h->last_ns)
		h->last_ns = end_ns;
	h->calls++;
	t->calls++;
	if (depth > t->max_depth)
		t->max_depth = depth;
	if (depth < AGG_DEPTHS) {
		struct span sp = { f->start_ns, dur, f->func, depth, t->index };
		if ((f->start_ns >> h->slice_shift) >= N_SLICES)
			widen(h, f->start_ns);
		keep(h, (uint32_t)(f->start_ns >> h->slice_shift), &sp);
	} else {
		aggregate(h, t, depth, f->start_ns, dur);
		h->dropped++;
	}
}

/* decimal without stdio's formatting machinery: the spans are most of the file */
static inline char *put_u64(char *p, uint64_t x)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + x % 10);
	while ((x /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static const char html_css[] =
"body{font:14px sans-serif;margin:0;background:#fafafa;color:#222}\n"
"header{position:sticky;top:0;z-index:2;background:#234;color:#fff;padding:8px 14px;display:flex;gap:14px;align-items:center}\n"
"header h1{font-size:17px;margin:0;flex:1;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}\n"
"#search{width:260px;padding:4px}\n"
"section{padding:6px 14px}h2{font-size:15px;margin:10px 0 4px}\n"
".note{color:#555;font-size:12px;margin:2px 0 6px}\n"
"#tl-wrap{position:relative;border:1px solid #ccc;background:#fff;overflow:auto;max-height:520px}\n"
"#tl{display:block;cursor:grab}\n"
"#tip{position:absolute;display:none;pointer-events:none;background:#ffd;border:1px solid #aa8;padding:2px 5px;font:12px monospace;white-space:pre}\n"
"button{margin-right:4px}\n"
"#flame{overflow-x:auto}\n"
"table{border-collapse:collapse;font:12px monospace}th,td{padding:2px 8px;text-align:right;border-bottom:1px solid #e4e4e4}\n"
"th{cursor:pointer;background:#eee;position:sticky;top:0}td:last-child,th:last-child{text-align:left}\n"
"tr.match td{background:#f6d0f6}\n";

static const char html_js[] =
"(function(){'use strict';\n"
"var D=JSON.parse(document.getElementById('fnt-data').textContent),names=D.names;\n"
"function fmt(ns){ns=Math.max(0,Math.floor(ns));var ip,fr,u;\n"
" if(ns<1e6){ip=Math.floor(ns/1e3);fr=ns%1e3;u=' us';}else if(ns<1e9){ip=Math.floor(ns/1e6);fr=Math.floor(ns/1e3)%1e3;u=' ms';}\n"
" else{ip=Math.floor(ns/1e9);fr=Math.floor(ns/1e6)%1e3;u=' s';}return ip+'.'+String(fr).padStart(3,'0')+u;}\n"
"var colors=names.map(function(s){var h=2166136261;for(var k=0;k<s.length;k++){h^=s.charCodeAt(k);h=Math.imul(h,16777619)>>>0;}\n"
" return 'rgb('+(205+(h&31))+','+(80+(h>>>8)%130)+','+(30+(h>>>16)%50)+')';});\n"
"var match=new Uint8Array(names.length),searching=false;\n"
/* timeline */
"var cv=document.getElementById('tl'),g=cv.getContext('2d'),wrap=document.getElementById('tl-wrap'),tip=document.getElementById('tip');\n"
"var ROW=14,HEAD=18,AX=22,lay=[],H=AX,ticks=[];\n"
"D.threads.forEach(function(t){var rows=Math.min(t.max_depth+1,D.rows);lay.push({t:t,y:H,rows:rows});H+=HEAD+rows*ROW+6;});\n"
"H=Math.max(H,30);var BEG=D.start_ns,END=Math.max(D.end_ns,BEG+1),v0=BEG,v1=END,drawn=0;\n"
/* the time axis: ticks every 1, 2 or 5 x 10^k ns, about 100 px apart, labelled
 * from the start of the trace in the unit of the step */
"function step(span,W){var t=span*100/W,p=Math.pow(10,Math.floor(Math.log10(t))),m=t/p;return (m<=1?1:m<=2?2:m<=5?5:10)*p;}\n"
"function label(t,st){var u=st>=1e9?[1e9,' s']:st>=1e6?[1e6,' ms']:st>=1e3?[1e3,' us']:[1,' ns'];\n"
" var dec=Math.max(0,Math.min(3,-Math.floor(Math.log10(st/u[0])+1e-9)));return (t/u[0]).toFixed(dec)+u[1];}\n"
"function axis(W,sc){var st=step(v1-v0,W),t=Math.ceil((v0-BEG)/st)*st;ticks=[];g.fillStyle='#234';\n"
" g.fillRect(0,AX-2,W,1);for(;BEG+t<=v1&&ticks.length<200;t+=st){var x=Math.round((BEG+t-v0)*sc);\n"
"  g.fillRect(x,AX-7,1,6);var s=label(t,st);ticks.push(s);g.fillText(s,x+3,AX/2-2);}}\n"
"function draw(){var W=cv.width,sc=W/(v1-v0);g.clearRect(0,0,W,H);g.font='11px monospace';g.textBaseline='middle';drawn=0;\n"
" axis(W,sc);\n"
" lay.forEach(function(L){var t=L.t,bw=D.bucket_ns;g.fillStyle='#234';\n"
"  g.fillText('thread '+t.tid+' '+t.name+' (pid '+t.pid+'), '+t.calls+' calls',4,L.y+HEAD/2);\n"
"  t.agg.forEach(function(a){var d=a[0],b=a[1],ry=L.y+HEAD+d*ROW;if(d>=L.rows)return;\n"
"   var i0=Math.max(0,Math.floor(v0/bw)),i1=Math.min(b.length,Math.ceil(v1/bw)+1);\n"
"   for(var i=i0;i<i1;i++){if(!b[i])continue;var x=(i*bw-v0)*sc;\n"
"    g.fillStyle='rgba(80,80,110,'+Math.min(1,0.12+0.88*b[i]/bw).toFixed(3)+')';g.fillRect(x,ry,Math.max(bw*sc,1),ROW-1);}});\n"
"  var s=t.spans,last=new Float64Array(L.rows).fill(-1);\n"
"  for(var k=0;k<s.length;k+=4){var st=s[k],du=s[k+1],d=s[k+2],f=s[k+3];\n"
"   if(d>=L.rows||st>v1||st+du<v0)continue;var x=(st-v0)*sc,w=du*sc;if(x<0){w+=x;x=0;}if(w>W-x)w=W-x;\n"
"   if(w<1){var px=Math.floor(x);if(px===last[d])continue;last[d]=px;w=1;}\n"
"   var y=L.y+HEAD+d*ROW;g.fillStyle=searching?(match[f]?'#d0d':'#ccc'):colors[f];g.fillRect(x,y,w>3?w-1:w,ROW-1);drawn++;\n"
"   if(w>30){g.fillStyle='#000';g.save();g.beginPath();g.rect(x,y,w-2,ROW);g.clip();g.fillText(names[f],x+2,y+ROW/2);g.restore();}}});\n"
" document.getElementById('tl-range').textContent=fmt(v0)+' .. '+fmt(v1)+' (span '+fmt(v1-v0)+'), '+drawn+' calls drawn';}\n"
"function resize(){cv.width=Math.max(300,wrap.clientWidth-2);cv.height=H;draw();}\n"
"function zoomAt(f,cx){var W=cv.width,t=v0+(v1-v0)*cx/W,n=Math.max((v1-v0)*f,100);if(n>END-BEG)n=END-BEG;\n"
" v0=t-n*cx/W;v1=v0+n;if(v0<BEG){v1+=BEG-v0;v0=BEG;}if(v1>END){v0-=v1-END;v1=END;if(v0<BEG)v0=BEG;}draw();}\n"
"cv.addEventListener('wheel',function(e){e.preventDefault();var r=cv.getBoundingClientRect();zoomAt(e.deltaY<0?0.8:1.25,e.clientX-r.left);},{passive:false});\n"
"var drag=null;cv.addEventListener('mousedown',function(e){drag={x:e.clientX,a:v0,b:v1};cv.style.cursor='grabbing';});\n"
"window.addEventListener('mouseup',function(){drag=null;cv.style.cursor='grab';});\n"
"function hit(mx,my){for(var i=0;i<lay.length;i++){var L=lay[i],d=Math.floor((my-L.y-HEAD)/ROW);if(d<0||d>=L.rows)continue;\n"
"  var t=v0+(v1-v0)*mx/cv.width,s=L.t.spans,best=-1;for(var k=0;k<s.length;k+=4)if(s[k+2]===d&&s[k]<=t&&s[k]+s[k+1]>=t)best=k;\n"
"  if(best>=0)return names[s[best+3]]+'\\n'+fmt(s[best+1])+' at '+fmt(s[best])+' (thread '+L.t.tid+', depth '+d+')';\n"
"  var a=L.t.agg.filter(function(a){return a[0]===d;})[0],bi=Math.floor(t/D.bucket_ns);\n"
"  var th=D.thresholds[Math.min(D.thresholds.length-1,Math.floor(t/D.slice_ns))]||D.threshold_ns;\n"
"  if(a&&a[1][bi])return 'calls shorter than '+fmt(th)+': '+(100*a[1][bi]/D.bucket_ns).toFixed(1)+'% busy';}return null;}\n"
"cv.addEventListener('mousemove',function(e){var r=cv.getBoundingClientRect(),mx=e.clientX-r.left,my=e.clientY-r.top;\n"
" if(drag){var dt=(drag.x-e.clientX)*(drag.b-drag.a)/cv.width;v0=Math.max(BEG,Math.min(END-(drag.b-drag.a),drag.a+dt));v1=v0+(drag.b-drag.a);draw();return;}\n"
" var s=hit(mx,my);if(!s){tip.style.display='none';return;}tip.textContent=s;tip.style.display='block';\n"
" tip.style.left=(mx+12+cv.offsetLeft)+'px';tip.style.top=(my+12)+'px';});\n"
"cv.addEventListener('mouseleave',function(){tip.style.display='none';});\n"
/* double click a call: the timeline shows just that call */
"cv.addEventListener('dblclick',function(e){var r=cv.getBoundingClientRect(),mx=e.clientX-r.left,my=e.clientY-r.top;\n"
" for(var i=0;i<lay.length;i++){var L=lay[i],d=Math.floor((my-L.y-HEAD)/ROW),t=v0+(v1-v0)*mx/cv.width,s=L.t.spans;\n"
"  if(d<0||d>=L.rows)continue;for(var k=s.length-4;k>=0;k-=4)if(s[k+2]===d&&s[k]<=t&&s[k]+s[k+1]>=t){\n"
"   v0=s[k];v1=s[k]+Math.max(s[k+1],100);draw();return;}}});\n"
"document.getElementById('zin').onclick=function(){zoomAt(0.5,cv.width/2);};\n"
"document.getElementById('zout').onclick=function(){zoomAt(2,cv.width/2);};\n"
"document.getElementById('zreset').onclick=function(){v0=BEG;v1=END;draw();};\n"
"window.addEventListener('resize',resize);\n"
/* profile table */
"var rows=D.profile,key=2,desc=true,tb=document.querySelector('#prof tbody');\n"
"function table(){rows.sort(function(a,b){var x=key===0?names[a[0]]:a[key],y=key===0?names[b[0]]:b[key];\n"
"  if(x<y)return desc?1:-1;if(x>y)return desc?-1:1;return names[a[0]]<names[b[0]]?-1:1;});\n"
" var fr=document.createDocumentFragment();rows.forEach(function(r){var tr=document.createElement('tr');\n"
"  [fmt(r[2]),fmt(r[3]),String(r[1]),fmt(r[4]),fmt(r[5]),fmt(r[6]),names[r[0]]].forEach(function(c){var td=document.createElement('td');td.textContent=c;tr.appendChild(td);});\n"
"  if(searching&&match[r[0]])tr.className='match';fr.appendChild(tr);});tb.textContent='';tb.appendChild(fr);}\n"
"[].forEach.call(document.querySelectorAll('#prof th'),function(th){th.onclick=function(){var k=+th.getAttribute('data-k');\n"
" if(k===key)desc=!desc;else{key=k;desc=k!==0;}table();};});\n"
/* search */
"var flame=document.querySelector('#flame svg');\n"
"document.getElementById('search').addEventListener('input',function(e){var q=e.target.value.toLowerCase(),n=0;searching=q.length>0;\n"
" for(var i=0;i<names.length;i++){match[i]=searching&&names[i].toLowerCase().indexOf(q)>=0?1:0;n+=match[i];}\n"
" var cover=flame&&flame.fntSearch?flame.fntSearch(searching?{test:function(s){return s.toLowerCase().indexOf(q)>=0;}}:null):0;\n"
" document.getElementById('matchinfo').textContent=searching?n+' function'+(n===1?'':'s')+' match, '+(100*cover).toFixed(1)+'% of the flame graph':'';\n"
" draw();table();});\n"
"window.fntTimeline={zoom:function(a,b){v0=a;v1=b;draw();},state:function(){return {v0:v0,v1:v1,drawn:drawn,start:BEG,end:END};},\n"
" axis:function(){return ticks.slice();},tip:function(x,y){return hit(x,y);},rowY:function(thread,depth){\n"
"  var L=lay[thread];return L.y+HEAD+depth*ROW+ROW/2;}};\n"
"resize();table();window.fntReady=performance.now();\n"
"})();\n";

int export_html(struct view *v, const struct export_opts *o, FILE *out)
{
	struct calltree t;
	struct html h = { .v = v, .bucket_ns = 1024, .bucket_shift = 10 };
	static const struct calls_ops ops = { on_begin, on_end, NULL, NULL, NULL, NULL, NULL, NULL };
	struct calltree_build b = { .tree = &t, .mode = CT_ALL, .next = &ops, .next_ctx = &h,
				    .no_collapse = o->no_collapse };
	struct flame_opts fo = { .value_calls = o->value_calls, .inverted = o->inverted, .width = 1200 };
	char buf[512], d1[32];
	size_t k = 0;

	h.spans = xmalloc(SPAN_BUDGET * sizeof(*h.spans));
	calltree_init(&t);
	calltree_build(v, &b);
	if (!trace_has_function_events(v->trace)) {
		view_no_events_hint(v);
		calltree_release(&t);
		free(h.spans);
		return -1;
	}
	fo.title = o->title ? o->title : flame_default_title(v, buf, sizeof(buf));
	/* each full slice's threshold (its shortest kept call), then the heaps
	 * packed into one array in time order */
	static uint64_t thr[N_SLICES];
	for (uint32_t s = 0; s < N_SLICES; s++) {
		thr[s] = h.heap_n[s] == SLICE_KEEP ? h.spans[(size_t)s * SLICE_KEEP].dur : 0;
		memmove(h.spans + h.n_spans, h.spans + (size_t)s * SLICE_KEEP, h.heap_n[s] * sizeof(*h.spans));
		h.n_spans += h.heap_n[s];
	}
	qsort(h.spans, h.n_spans, sizeof(*h.spans), cmp_span);

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", out);
	flame_xml_str(out, fo.title);
	fprintf(out, " - fntrace</title>\n<style>\n%s</style></head>\n<body>\n<header><h1>", html_css);
	flame_xml_str(out, fo.title);
	fputs("</h1><input id=\"search\" type=\"search\" placeholder=\"search functions\" autocomplete=\"off\">"
	      "<span id=\"matchinfo\"></span></header>\n", out);
	fprintf(out, "<section><h2>Timeline</h2>\n<div class=\"note\" id=\"tl-note\">%" PRIu64 " calls on %zu thread%s. "
		"Wheel to zoom, drag to pan, double-click a call to fit it, hover for details.", h.calls, h.n_threads, h.n_threads == 1 ? "" : "s");
	if (h.dropped) {
		format_duration(d1, sizeof(d1), h.threshold);
		fprintf(out, " To stay fast, each of the %d equal time slices draws its %d longest calls one by one; "
			"the other %" PRIu64 " calls (none longer than %s) are shown as grey density per %" PRIu64
			" ns. Zoom in on a quiet stretch to see every call of it.", N_SLICES, SLICE_KEEP, h.dropped,
			d1 + strspn(d1, " "), h.bucket_ns);
	}
	for (size_t i = 0; i < h.n_threads; i++)
		if (h.threads[i]->max_depth >= AGG_DEPTHS) {
			fprintf(out, " Calls deeper than %d levels are not drawn here (the flame graph and the "
				"profile count them).", AGG_DEPTHS);
			break;
		}
	fprintf(out, "</div>\n"
		"<div><button id=\"zin\">zoom in</button><button id=\"zout\">zoom out</button>"
		"<button id=\"zreset\">reset</button> <span id=\"tl-range\"></span></div>\n"
		"<div id=\"tl-wrap\"><canvas id=\"tl\"></canvas><div id=\"tip\"></div></div></section>\n");
	fprintf(out, "<section><h2>Flame graph</h2><div class=\"note\">Width: %s. Click a frame to zoom, "
		"'Reset zoom' to go back.</div>\n<div id=\"flame\">\n",
		o->value_calls ? "calls" : "inclusive time");
	flame_svg(v, &t, &fo, out);
	fputs("</div></section>\n<section><h2>Profile</h2><div class=\"note\">As 'fntrace report': total counts "
	      "the outermost call of a recursion once. Click a column to sort.</div>\n"
	      "<table id=\"prof\"><thead><tr><th data-k=\"2\">Total time</th><th data-k=\"3\">Self time</th>"
	      "<th data-k=\"1\">Calls</th><th data-k=\"4\">Avg time</th><th data-k=\"5\">Min time</th>"
	      "<th data-k=\"6\">Max time</th><th data-k=\"0\">Function</th></tr></thead><tbody></tbody></table>"
	      "</section>\n", out);

	/* the data */
	fputs("<script type=\"application/json\" id=\"fnt-data\">{\"title\":", out);
	json_fput(out, fo.title, JSON_HTML);
	fprintf(out, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"threshold_ns\":%" PRIu64 ",\"bucket_ns\":%" PRIu64
		",\"calls\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"rows\":%d,\"slice_ns\":%" PRIu64 ",\"slice_keep\":%d,"
		"\n\"thresholds\":[",
		h.first_ns, h.last_ns, h.threshold, h.bucket_ns, h.calls, h.dropped, AGG_DEPTHS,
		(uint64_t)1 << h.slice_shift, SLICE_KEEP);
	for (uint32_t s = 0; s < N_SLICES; s++)
		fprintf(out, "%s%" PRIu64, s ? "," : "", thr[s]);
	fputs("],\n\"names\":[", out);
	/* the functions called, told apart where they show one name (overloads) */
	uint32_t *called = xmalloc((h.n_stats ? h.n_stats : 1) * sizeof(*called));
	size_t n_called = 0;
	for (size_t i = 0; i < h.n_stats; i++)
		if (h.stats[i].calls)
			called[n_called++] = (uint32_t)i;
	char **labels = view_labels(v, called, n_called);
	for (size_t i = 0, k = 0; i < h.n_stats; i++) {
		if (i)
			fputc(',', out);
		if (h.stats[i].calls) {
			json_fput(out, labels[k] ? labels[k] : view_name(v, (uint32_t)i), JSON_HTML);
			k++;
		} else {
			fputs("\"\"", out);
		}
	}
	view_labels_free(labels, n_called);
	free(called);
	fputs("],\n\"profile\":[", out);
	for (size_t i = 0, first = 1; i < h.n_stats; i++) {
		struct fstat *s = &h.stats[i];
		if (!s->calls)
			continue;
		fprintf(out, "%s[%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
			first ? "" : ",\n", i, s->calls, s->total, s->self, mean_ns(s->sum, s->timed), s->min,
			s->max);
		first = 0;
	}
	fputs("],\n\"threads\":[", out);
	for (size_t i = 0; i < h.n_threads; i++) {
		struct hthread *ht = h.threads[i];
		size_t k0 = k;
		while (k < h.n_spans && h.spans[k].thread == i)
			k++;
		fprintf(out, "%s{\"pid\":%u,\"tid\":%u,\"name\":", i ? ",\n" : "", ht->th->proc->hdr.pid, ht->th->tid);
		json_fput(out, ht->th->name, JSON_HTML);
		fprintf(out, ",\"max_depth\":%u,\"spans\":[", ht->max_depth);
		for (size_t j = k0; j < k; j++) {
			struct span *s = &h.spans[j];
			char line[100], *e = line;
			if (j > k0)
				*e++ = ',';
			e = put_u64(e, s->start);
			*e++ = ',';
			e = put_u64(e, s->dur);
			*e++ = ',';
			e = put_u64(e, s->depth);
			*e++ = ',';
			e = put_u64(e, s->func);
			fwrite(line, 1, (size_t)(e - line), out);
		}
		fputs("],\"agg\":[", out);
		for (int d = 0, first = 1; d < AGG_DEPTHS; d++) {
			double *bk = ht->agg[d];
			int last = N_BUCKETS;
			if (!bk)
				continue;
			while (last > 0 && bk[last - 1] < 0.5)
				last--;
			fprintf(out, "%s[%d,[", first ? "" : ",", d);
			for (int j = 0; j < last; j++) {
				char num[32], *e = num;
				if (j)
					*e++ = ',';
				e = put_u64(e, (uint64_t)(bk[j] + 0.5));
				fwrite(num, 1, (size_t)(e - num), out);
			}
			fputs("]]", out);
			first = 0;
		}
		fprintf(out, "],\"calls\":%" PRIu64 "}", ht->calls);
	}
	fputs("]}\n</script>\n<script>\n", out);
	fputs(html_js, out);
	fputs("</script>\n</body></html>\n", out);

	for (size_t i = 0; i < h.n_threads; i++) {
		for (int d = 0; d < AGG_DEPTHS; d++)
			free(h.threads[i]->agg[d]);
		free(h.threads[i]->active);
		free(h.threads[i]);
	}
	free(h.threads);
	free(h.stats);
	free(h.spans);
	calltree_release(&t);
	return 0;
}
