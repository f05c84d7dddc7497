// The part of the page's script that draws the rows kept as data
// (html_timeline_data.h): ops per stream lane and API calls per thread.
#include "analyzer/export/html_assets.h"

namespace streamscope {

// One script asset (JavaScript in a raw string), kept whole.
std::string_view HtmlTimelineRowsScript() {
  return R"JS(
var StreamscopeRows = (function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  // A row is drawn as density when it holds more than one item per this
  // many pixels of the view; otherwise each item is drawn.
  var PX_PER_ITEM = 4, PX_PER_BIN = 2;

  // As the C++ FormatDuration: "3.94 us", "16.7 s".
  function dur(ns) {
    var a = Math.abs(ns);
    function three(v, u) { var x = Math.abs(v); return v.toFixed(x >= 100 ? 0 : x >= 10 ? 1 : 2) + ' ' + u; }
    if (a < 1e3) return Math.round(ns) + ' ns';
    if (a < 1e6 - 500) return three(ns / 1e3, 'us');
    if (a < 1e9 - 5e5) return three(ns / 1e6, 'ms');
    return three(ns / 1e9, 's');
  }
  // A start offset precise to the µs however far into the trace: "+16699.908 ms".
  function at(ns) { return '+' + (Math.abs(ns) < 1e6 ? dur(ns) : (ns / 1e6).toFixed(3) + ' ms'); }
  // First index in the sorted array `a` whose value is >= v.
  function lowerBound(a, v) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < v) lo = mid + 1; else hi = mid; }
    return lo;
  }

  function Rows(svg, data) {
    this.data = data;
    this.rows = [];
    var groups = svg.querySelectorAll('g[data-row]');
    for (var k = 0; k < groups.length; ++k) {
      var row = data.rows[+groups[k].getAttribute('data-row')];
      if (!row) continue;
      var n = row.s.length, st = new Float64Array(n), t = 0, maxDur = 0;
      for (var i = 0; i < n; ++i) { t += row.s[i]; st[i] = t; if (row.d[i] > maxDur) maxDur = row.d[i]; }
      row.st = st;
      row.maxDur = maxDur;
      // The row's classes, and each item's index among them.
      if (row.k === 'op') row.classes = data.cats.map(function (c) { return 'op ' + c; });
      else if (row.k === 'api') row.classes = ['api', 'api sync'];
      else {
        var local = {};
        row.classes = [];
        row.lc = new Int32Array(n);
        for (var j = 0; j < n; ++j) {
          var name = data.strs[row.c[j]];
          if (!(name in local)) { local[name] = row.classes.length; row.classes.push(name); }
          row.lc[j] = local[name];
        }
      }
      if (!row.lc) row.lc = row.c;
      if (!row.n) row.n = row.c.map(function () { return 0; });
      row.g = groups[k];
      this.rows.push(row);
    }
  }

  Rows.prototype.cls = function (row, c, density) { return row.classes[c] + (density ? ' density' : ''); };

  function rect(cls, x, w, y, h) {
    var r = document.createElementNS(NS, 'rect');
    r.setAttribute('class', cls);
    r.setAttribute('x', x);
    r.setAttribute('width', w);
    r.setAttribute('y', y);
    r.setAttribute('height', h);
    return r;
  }

  // Draws every row for the view [x0, x0 + w) µs, `px` pixels wide.
  Rows.prototype.draw = function (x0us, wus, px) {
    var a = x0us * 1000, b = (x0us + wus) * 1000;
    for (var k = 0; k < this.rows.length; ++k) this.drawRow(this.rows[k], a, b, px);
  };

  Rows.prototype.drawRow = function (row, a, b, px) {
    var lo = lowerBound(row.st, a - row.maxDur), hi = lowerBound(row.st, b), n = 0;
    for (var i = lo; i < hi; ++i) if (row.st[i] + row.d[i] >= a) ++n;
    var g = row.g, frag = document.createDocumentFragment();
    while (g.firstChild) g.removeChild(g.firstChild);
    row.view = { a: a, b: b, lo: lo, hi: hi };
    if (n * PX_PER_ITEM > px) {
      this.drawDensity(row, a, b, px, lo, hi, frag);
      g.setAttribute('data-mode', 'density');
    } else {
      row.bins = null;
      for (var j = lo; j < hi; ++j) {
        var s = row.st[j], d = row.d[j];
        if (s + d < a) continue;
        var r = rect(this.cls(row, row.lc[j], false) + (row.n[j] < 0 ? ' agg' : ''), s / 1000, d / 1000, row.y, row.h);
        if (row.n[j] < 0 && d > 0) r.setAttribute('fill-opacity', Math.max(0.2, Math.min(1, row.b[j] / d)).toFixed(2));
        frag.appendChild(r);
      }
      g.setAttribute('data-mode', 'ops');
    }
    g.appendChild(frag);
  };

  // The busy share of each PX_PER_BIN-pixel column, drawn as a bar of that
  // height in the colour of the class with the most busy time in it.
  Rows.prototype.drawDensity = function (row, a, b, px, lo, hi, frag) {
    var nb = Math.max(1, Math.floor(px / PX_PER_BIN)), bw = (b - a) / nb, ncls = row.classes.length;
    var busy = new Float64Array(nb), byCls = new Float64Array(nb * ncls), count = new Int32Array(nb);
    for (var i = lo; i < hi; ++i) {
      var s = row.st[i], e = s + row.d[i];
      if (e < a) continue;
      var share = row.n[i] < 0 && row.d[i] > 0 ? row.b[i] / row.d[i] : 1, items = row.n[i] < 0 ? row.i[i] : 1;
      var first = Math.max(0, Math.floor((s - a) / bw)), last = Math.min(nb - 1, Math.floor((Math.min(e, b) - a) / bw));
      count[first] += items;
      for (var j = first; j <= last; ++j) {
        var o = (Math.min(e, a + (j + 1) * bw) - Math.max(s, a + j * bw)) * share;
        if (o <= 0) o = 1e-9 * bw;  // a zero-length op still marks its column
        busy[j] += o;
        byCls[j * ncls + row.lc[i]] += o;
      }
    }
    // A pale band under each run of columns with work in them: where
    // anything ran stays visible however little of the column it filled.
    for (var r0 = 0; r0 < nb; ++r0) {
      if (busy[r0] <= 0) continue;
      var r1 = r0;
      while (r1 + 1 < nb && busy[r1 + 1] > 0) ++r1;
      frag.appendChild(rect('density-band', (a + r0 * bw) / 1000,
                            (r1 - r0 + 1) * bw / 1000, row.y, row.h));
      r0 = r1;
    }
    for (var j2 = 0; j2 < nb; ++j2) {
      if (busy[j2] <= 0) continue;
      var best = 0;
      for (var c = 1; c < ncls; ++c) if (byCls[j2 * ncls + c] > byCls[j2 * ncls + best]) best = c;
      var h = Math.max(1.5, Math.min(1, busy[j2] / bw) * row.h);
      frag.appendChild(rect(this.cls(row, best, true), (a + j2 * bw) / 1000, bw / 1000, row.y + row.h - h, h));
    }
    row.bins = { a: a, bw: bw, busy: busy, count: count };
  };

  Rows.prototype.rowAt = function (y) {
    for (var k = 0; k < this.rows.length; ++k) {
      var r = this.rows[k];
      if (y >= r.y - 2 && y < r.y + r.h + 2) return r;
    }
    return null;
  };

  // The hover text at `xus` µs, `y` svg units, `tol` µs of slack; '' if none.
  Rows.prototype.textAt = function (xus, y, tol) {
    var row = this.rowAt(y);
    if (!row || !row.view) return '';
    var x = xus * 1000, t = tol * 1000;
    if (row.bins) {
      var bn = row.bins, j = Math.floor((x - bn.a) / bn.bw);
      if (j < 0 || j >= bn.busy.length || bn.busy[j] <= 0) return '';
      var s0 = bn.a + j * bn.bw;
      return row.l + '\n' + bn.count[j] + (row.k === 'api' ? ' calls' : row.k === 'sl' ? ' slices' : ' ops') + ' start in ' + at(s0) + ' … ' +
          at(s0 + bn.bw) + ', busy ' + Math.round(100 * Math.min(1, bn.busy[j] / bn.bw)) + '%\nzoom in to see each ' +
          (row.k === 'api' ? 'call' : row.k === 'sl' ? 'slice' : 'op');
    }
    var best = -1, bestD = Infinity;
    for (var i = row.view.lo; i < row.view.hi; ++i) {
      var s = row.st[i], e = s + row.d[i];
      var dd = x < s ? s - x : x > e ? x - e : 0;
      if (dd <= t && dd < bestD) { best = i; bestD = dd; }
    }
    return best < 0 ? '' : this.itemText(row, best);
  };

  Rows.prototype.itemText = function (row, i) {
    var D = this.data, s = row.st[i], d = row.d[i], when = '\nstart ' + at(s) + ', duration ' + dur(d);
    if (row.k === 'sl') {
      var text = D.strs[row.t[i]], nl = text.indexOf('\n');
      if (nl < 0) nl = text.length;
      return text.slice(0, nl) + '\nstart ' + at(s) + ', length ' + dur(d) + text.slice(nl);
    }
    if (row.n[i] < 0) {
      return row.i[i] + (row.k === 'api' ? ' calls' : ' ops') + ' merged\n' + row.l + '\nstart ' + at(s) +
          ', span ' + dur(d) + ', busy ' + dur(row.b[i]) + (row.x && row.x[i] >= 0 ? '\n' + D.strs[row.x[i]] : '');
    }
    if (row.k === 'api') {
      return D.strs[row.n[i]] + '\ncall ' + row.i[i] + ' (thread ' + row.tid + '), ' +
          (row.m[i] === 2 ? 'driver' : 'runtime') + ', correlation ' + row.r[i] + when;
    }
    var t = D.strs[row.n[i]] + '\n' + row.l + when + '\n' + D.kinds[row.c[i]] + ' ' + row.i[i] + ' (stream ' +
        row.sid + '), correlation ' + row.r[i];
    if (row.x[i] >= 0) t += '\n' + D.strs[row.x[i]];
    if (row.g[i] >= 0) t += '\ngraph ' + row.g[i];
    if (row.a[i] >= 0) {
      t += '\nsubmitted by call ' + row.a[i] + ' ' + D.strs[row.an[i]] + ', queue delay ' +
          (row.q[i] < 0 ? '0 ns (started during the call)' : dur(row.q[i]));
    }
    return t;
  };

  return { Rows: Rows, dur: dur };
})();
)JS";
}

}  // namespace streamscope
