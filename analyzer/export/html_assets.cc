#include "analyzer/export/html_assets.h"

namespace streamscope {

std::string_view HtmlReportCss() {
  return R"CSS(
:root { --label-w: 260px; }
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 16px 20px; color: #1d2329; background: #fff; }
h1 { font-size: 20px; margin: 0 0 8px; } h2 { font-size: 16px; margin: 18px 0 6px; border-bottom: 1px solid #dde; }
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
.controls { margin: 6px 0; display: flex; gap: 6px; align-items: center; }
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
.op, .ovl, .gap, .nvtx, .hs { vector-effect: non-scaling-stroke; stroke-width: 1px; }
.compute { fill: #4e79a7; stroke: #4e79a7; } .H2D { fill: #59a14f; stroke: #59a14f; }
.D2H { fill: #e15759; stroke: #e15759; } .D2D { fill: #b07aa1; stroke: #b07aa1; }
.P2P { fill: #9c755f; stroke: #9c755f; } .memset { fill: #edc948; stroke: #edc948; }
.other_copy { fill: #bab0ac; stroke: #bab0ac; }
.ovl, .ovl-swatch { fill: #f28e2b; stroke: #f28e2b; }
.gap { fill: #c9ced6; stroke: #c9ced6; }
.cause-host_blocked_in_call { fill: #b3261e; stroke: #b3261e; }
.cause-round_trip, .cause-sync_wait { fill: #7f1d1d; stroke: #7f1d1d; }
.cause-host_nvtx_range { fill: #e8833a; stroke: #e8833a; }
.cause-host_unannotated { fill: #d95f5f; stroke: #d95f5f; }
.cause-submission_latency { fill: #e9c46a; stroke: #e9c46a; }
.cause-dependency_event_wait, .cause-dependency_host_callback, .cause-dependency_other_stream { fill: #8ab17d; stroke: #8ab17d; }
.cause-queued_unexplained, .cause-unknown_submitter, .cause-unclassified { fill: #9aa3ad; stroke: #9aa3ad; }
.cause-window_start, .cause-window_end { fill: #e3e6ea; stroke: #e3e6ea; }
.gap.part { fill-opacity: 0.9; }
.nvtx { fill: #76b7b2; stroke: #5a9a95; fill-opacity: 0.8; }
.hs { fill: #b3261e; stroke: #b3261e; fill-opacity: 0.25; }
.hs-line { stroke: #b3261e; stroke-width: 2px; vector-effect: non-scaling-stroke; }
.cp { fill: #6a3d9a; stroke: #6a3d9a; } .cp.seg-host_work, .cp.seg-api_call, .cp.seg-sync_return { fill: #cab2d6; stroke: #9a7fb0; }
.cp.seg-launch, .cp.seg-gpu_wait { fill: #fdbf6f; stroke: #e59a3a; }
pre.report-summary { background: #f4f6f9; border: 1px solid #dde; padding: 6px 10px; margin: 4px 0 8px; overflow-x: auto; }
ol.diagnosis { padding-left: 22px; margin: 4px 0 8px; } ol.diagnosis li { margin: 4px 0; }
ol.diagnosis li.primary { color: #7a1a14; } .remedy { color: #1d2329; }
.legend { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0; }
.legend span { display: inline-flex; align-items: center; gap: 4px; }
.legend i { display: inline-block; width: 12px; height: 10px; }
.plots { display: flex; flex-wrap: wrap; gap: 24px; }
.hist-bar { fill: #4e79a7; } .hist-bar.gaps { fill: #d95f5f; }
.hist text { font-size: 10px; }
footer { margin-top: 18px; color: #777; font-size: 11px; }
)CSS";
}

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
    var NS = 'http://www.w3.org/2000/svg';

    function fmt(us) {
      var a = Math.abs(us);
      if (a === 0) return '0';
      if (a < 1) return (us * 1000).toFixed(0) + ' ns';
      if (a < 1000) return +us.toPrecision(4) + ' µs';
      if (a < 1e6) return +(us / 1000).toPrecision(4) + ' ms';
      return +(us / 1e6).toPrecision(4) + ' s';
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
        tx.textContent = fmt(t);
        axis.appendChild(tx);
      }
      range.textContent = 'showing +' + fmt(x0) + ' … +' + fmt(x0 + w) + ' (' + fmt(w) + ')';
    }
    function apply() {
      if (w > W) w = W;
      if (w < minW) w = minW;
      if (x0 < 0) x0 = 0;
      if (x0 + w > W) x0 = W - w;
      svg.setAttribute('viewBox', x0 + ' 0 ' + w + ' ' + H);
      drawAxis();
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
      if (!drag) return;
      x0 = drag.x0 - (e.clientX - drag.x) / main.getBoundingClientRect().width * w;
      apply();
    });
    function endDrag() { drag = null; main.classList.remove('dragging'); }
    main.addEventListener('pointerup', endDrag);
    main.addEventListener('pointercancel', endDrag);
    function home() { x0 = V0; w = VW; apply(); }
    main.addEventListener('dblclick', home);
    document.getElementById('zoom-in').addEventListener('click', function () { zoomAt(0.5, 0.5); });
    document.getElementById('zoom-out').addEventListener('click', function () { zoomAt(0.5, 2); });
    document.getElementById('zoom-reset').addEventListener('click', home);
    document.getElementById('zoom-all').addEventListener('click', function () { x0 = 0; w = W; apply(); });
    window.addEventListener('resize', drawAxis);
    svg.addEventListener('tl-zoom', function (e) { x0 = e.detail.start; w = e.detail.width; apply(); });
    apply();
    body.setAttribute('data-render-ok', '1');
  } catch (err) {
    body.setAttribute('data-render-error', String(err && err.stack || err));
  }
})();
)JS";
}

}  // namespace streamscope
