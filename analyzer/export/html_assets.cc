#include "analyzer/export/html_assets.h"

namespace streamscope {

std::string_view HtmlReportCss() {
  return R"CSS(
:root { --label-w: 260px; }
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 8px 16px; color: #1d2329; background: #fff; }
h1 { font-size: 16px; margin: 0 0 4px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; } h2 { font-size: 16px; margin: 18px 0 6px; border-bottom: 1px solid #dde; }
h3 { font-size: 14px; margin: 10px 0 4px; }
table.kv, table.grid { border-collapse: collapse; margin: 4px 0 8px; }
table.kv th { text-align: left; font-weight: 600; padding: 1px 12px 1px 0; vertical-align: top; white-space: nowrap; }
table.kv td { padding: 1px 0; }
table.grid th, table.grid td { border: 1px solid #dde; padding: 2px 8px; text-align: right; }
table.grid th:first-child, table.grid td:first-child { text-align: left; }
.summaries { display: flex; flex-wrap: wrap; gap: 24px; }
.summary { min-width: 380px; }
.pass { color: #11772d; font-weight: 600; } .fail { color: #b3261e; font-weight: 600; }
ul.findings { padding-left: 18px; margin: 4px 0; } ul.findings li { margin: 2px 0; }
li.problem::marker { color: #b3261e; } li.warning::marker { color: #c77700; } li.info::marker { color: #6b7785; }
li.problem { color: #7a1a14; }
.notes { background: #fff8e1; border: 1px solid #f0d48a; padding: 6px 10px; margin: 8px 0; }
.notes p { margin: 2px 0; }
.controls { margin: 4px 0 2px; display: flex; gap: 6px; align-items: center; }
.controls button { font: inherit; padding: 1px 9px; }
#view-range { color: #555; margin-left: 8px; }
.tl { display: flex; border: 1px solid #ccd; user-select: none; }
.tl-labels { flex: 0 0 var(--label-w); overflow: hidden; border-right: 1px solid #ccd; background: #fafbfc; }
.tl-main { flex: 1 1 auto; min-width: 200px; overflow: hidden; cursor: grab; }
.tl-main.dragging { cursor: grabbing; }
svg text { font: 11px system-ui, sans-serif; fill: #222; }
svg text.head { font-weight: 600; } svg text.dev { font-weight: 600; fill: #334; }
.kind-overlap text, .kind-sync text { font-size: 10px; }
#tl-axis text { fill: #555; font-size: 10px; } #tl-axis line { stroke: #aab; }
.row-bg.odd { fill: #f4f6f9; } .row-bg.even { fill: #fff; } .row-bg.head { fill: #e6eaf0; }
.op, .ovl, .gap, .nvtx, .hs, .api, .cp { vector-effect: non-scaling-stroke; stroke-width: 1px; }
.op.density, .api.density { stroke-width: 0; }
.density-band { fill: #5a6470; stroke-width: 0; fill-opacity: 0.12; }
.hs { fill-opacity: 0.25; }
.hs-line { stroke-width: 2px; vector-effect: non-scaling-stroke; }
#tl-tip { position: fixed; display: none; z-index: 10; pointer-events: none; white-space: pre; font: 11px/1.35 system-ui, sans-serif;
  background: #fffff4; border: 1px solid #99a; padding: 3px 6px; max-width: 720px; overflow: hidden; box-shadow: 1px 2px 4px rgba(0,0,0,.2); }
#answer .answer { display: grid; grid-template-columns: minmax(0, 1.1fr) minmax(0, 1fr); gap: 12px; margin: 0 0 6px; }
#answer .answer-label { grid-column: 1 / -1; font-weight: 600; }
#answer pre.report-summary, #answer .diagnosis-box { max-height: 15.5em; overflow: auto; margin: 0; }
#answer .diagnosis-box { border: 1px solid #dde; padding: 4px 8px 4px 0; font-size: 12px; }
pre.report-summary { background: #f4f6f9; border: 1px solid #dde; padding: 4px 8px; margin: 4px 0 8px; overflow-x: auto; font-size: 11.5px; }
ol.diagnosis { padding-left: 22px; margin: 2px 0; } ol.diagnosis li { margin: 4px 0; }
ol.diagnosis li.primary { color: #7a1a14; } .remedy { color: #1d2329; }
.legend { display: flex; flex-wrap: wrap; gap: 2px 10px; margin: 2px 0 4px; font-size: 11px; }
.legend span { display: inline-flex; align-items: center; gap: 4px; }
.legend i { display: inline-block; width: 12px; height: 10px; }
.plots { display: flex; flex-wrap: wrap; gap: 24px; }
.hist-bar { fill: #4b77b0; } .hist-bar.gaps { fill: #7e3844; }
.hist text { font-size: 10px; }
footer { margin-top: 18px; color: #777; font-size: 11px; }
)CSS";
}

// One script asset (JavaScript in a raw string), kept whole.
std::string_view HtmlReportScript() {
  return R"JS(
(function () {
  'use strict';
  var body = document.body;
  window.addEventListener('error', function (e) { body.setAttribute('data-render-error', String(e.message)); });
  try {
    var svg = document.getElementById('tl-svg');
    var main = document.getElementById('tl-main');
    var axis = document.getElementById('tl-axis');
    var range = document.getElementById('view-range');
    var W = parseFloat(svg.getAttribute('data-width'));      // µs
    var H = parseFloat(svg.getAttribute('data-height'));
    var minW = Math.max(W * 1e-7, 0.001);
    // The page opens on the analysed window; reset returns there, "all" shows everything drawn.
    var V0 = parseFloat(svg.getAttribute('data-view-start')) || 0;
    var VW = parseFloat(svg.getAttribute('data-view-width')) || W;
    var x0 = V0, w = VW;
    // A view in the address (#view=START_US,WIDTH_US) opens there instead.
    var asked = /view=([0-9.eE+-]+),([0-9.eE+-]+)/.exec(location.hash);
    if (asked) { x0 = +asked[1]; w = +asked[2]; }
    var NS = 'http://www.w3.org/2000/svg';

    var rows = new StreamscopeRows.Rows(svg, JSON.parse(document.getElementById('tl-data').textContent));
    var tip = document.getElementById('tl-tip');

    // A time in µs with as many decimals as `step` (µs) needs, in the unit
    // of the largest time shown, so that neighbouring ticks never read alike.
    function fmt(us, step) {
      var big = Math.max(Math.abs(x0), Math.abs(x0 + w)), unit = 's', scale = 1e6;
      if (big < 1) { unit = 'ns'; scale = 1e-3; } else if (big < 1e3) { unit = 'µs'; scale = 1; }
      else if (big < 1e6) { unit = 'ms'; scale = 1e3; }
      var digits = Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9));
      return (us / scale).toFixed(Math.min(digits, 12)) + ' ' + unit;
    }
    function niceStep(span, n) {
      var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
      return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
    }
    function drawAxis() {
      var px = main.clientWidth || 800;
      while (axis.firstChild) axis.removeChild(axis.firstChild);
      axis.setAttribute('viewBox', '0 0 ' + px + ' 22');
      axis.setAttribute('width', px);
      var step = niceStep(w, Math.max(2, Math.floor(px / 110)));
      for (var t = Math.ceil(x0 / step) * step; t <= x0 + w + 1e-9; t += step) {
        var x = (t - x0) / w * px;
        var l = document.createElementNS(NS, 'line');
        l.setAttribute('x1', x); l.setAttribute('x2', x); l.setAttribute('y1', 14); l.setAttribute('y2', 22);
        axis.appendChild(l);
        var tx = document.createElementNS(NS, 'text');
        tx.setAttribute('x', x + 2); tx.setAttribute('y', 11);
        tx.setAttribute('class', 'tick');
        tx.textContent = fmt(t, step);
        axis.appendChild(tx);
      }
      range.textContent = 'showing +' + fmt(x0, w / 100) + ' … +' + fmt(x0 + w, w / 100) + ' (' +
          StreamscopeRows.dur(w * 1000) + ')';
    }
    // Redraws once per animation frame however many wheel or drag events
    // arrive in it; `now` draws at once (the opening view).
    var pending = false;
    function redraw() {
      pending = false;
      svg.setAttribute('viewBox', x0 + ' 0 ' + w + ' ' + H);
      rows.draw(x0, w, main.clientWidth || 800);
      drawAxis();
    }
    function apply(now) {
      if (w > W) w = W;
      if (w < minW) w = minW;
      if (x0 < 0) x0 = 0;
      if (x0 + w > W) x0 = W - w;
      if (now === true) redraw();
      else if (!pending) {
        pending = true;
        // A timer too: a page that draws no frames (headless) still redraws.
        var fire = function () { if (pending) redraw(); };
        window.requestAnimationFrame(fire);
        window.setTimeout(fire, 50);
      }
    }
    function zoomAt(frac, factor) {
      var nw = Math.min(W, Math.max(minW, w * factor));
      x0 += frac * (w - nw);
      w = nw;
      apply();
    }
    main.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = main.getBoundingClientRect();
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        x0 += (e.deltaX || e.deltaY) / r.width * w;
        apply();
        return;
      }
      zoomAt((e.clientX - r.left) / r.width, Math.exp(e.deltaY * 0.002));
    }, { passive: false });
    var drag = null;
    main.addEventListener('pointerdown', function (e) {
      drag = { x: e.clientX, x0: x0 };
      main.classList.add('dragging');
      if (main.setPointerCapture) main.setPointerCapture(e.pointerId);
    });
    main.addEventListener('pointermove', function (e) {
      if (!drag) {
        var r = svg.getBoundingClientRect();
        var text = r.width > 0 ? rows.textAt(x0 + (e.clientX - r.left) / r.width * w, e.clientY - r.top,
                                             3 / r.width * w) : '';
        tip.style.display = text ? 'block' : 'none';
        if (text) {
          tip.textContent = text;
          tip.style.left = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4) + 'px';
          tip.style.top = Math.min(e.clientY + 14, window.innerHeight - tip.offsetHeight - 4) + 'px';
        }
        return;
      }
      tip.style.display = 'none';
      x0 = drag.x0 - (e.clientX - drag.x) / main.getBoundingClientRect().width * w;
      apply();
    });
    function endDrag() { drag = null; main.classList.remove('dragging'); }
    main.addEventListener('pointerup', endDrag);
    main.addEventListener('pointerleave', function () { tip.style.display = 'none'; });
    main.addEventListener('pointercancel', endDrag);
    function home() { x0 = V0; w = VW; apply(); }
    main.addEventListener('dblclick', home);
    document.getElementById('zoom-in').addEventListener('click', function () { zoomAt(0.5, 0.5); });
    document.getElementById('zoom-out').addEventListener('click', function () { zoomAt(0.5, 2); });
    document.getElementById('zoom-reset').addEventListener('click', home);
    document.getElementById('zoom-all').addEventListener('click', function () { x0 = 0; w = W; apply(); });
    window.addEventListener('resize', apply);
    // The per-instance chart's bars zoom the timeline to their instance.
    svg.addEventListener('tl-zoom', function (e) { x0 = e.detail.start; w = e.detail.width; apply(); });
    apply(true);
    // Where the drawing area lies on the page (px), for scripts that check
    // screenshots of it.
    var box = svg.getBoundingClientRect();
    body.setAttribute('data-tl-left', Math.round(box.left + window.scrollX));
    body.setAttribute('data-tl-top', Math.round(box.top + window.scrollY));
    body.setAttribute('data-tl-width', Math.round(box.width));
    // For scripts that read what hovering shows: rows.textAt(µs, y, slack µs).
    window.streamscopeTimeline = { rows: rows };
    body.setAttribute('data-render-ok', '1');
  } catch (err) {
    body.setAttribute('data-render-error', String(err && err.stack || err));
  }
})();
)JS";
}

}  // namespace streamscope
