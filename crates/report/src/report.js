// Draws the charts of a `skills report` page from its data (the JSON in #report-data), as SVG.
// Every text is set with textContent, never parsed as markup. When it has drawn everything it
// sets data-status="ok" and data-points (the number of data points drawn) on <html>; an error
// anywhere on the page is appended to data-errors.
"use strict";
(function () {
  var root = document.documentElement;
  window.addEventListener("error", function (event) {
    root.setAttribute("data-errors", (root.getAttribute("data-errors") || "") + event.message + "\n");
  });
  var NS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var points = 0;

  function svg(name, attributes, parent) {
    var element = document.createElementNS(NS, name);
    Object.keys(attributes).forEach(function (key) { element.setAttribute(key, String(attributes[key])); });
    if (parent) { parent.appendChild(element); }
    return element;
  }
  function text(parent, x, y, content, attributes) {
    var label = svg("text", Object.assign({ x: x, y: y }, attributes || {}), parent);
    label.textContent = content;
    return label;
  }
  function tip(element, content) {
    svg("title", {}, element).textContent = content;
  }
  function percent(value) { return Math.round(value * 100) + "%"; }

  // Usage: one row of bars per skill, a bar per day, all rows on the same scale.
  var usage = document.getElementById("usage-chart");
  var days = data.usage.days;
  var highest = 1;
  data.usage.skills.forEach(function (skill) {
    skill.calls.forEach(function (calls) { highest = Math.max(highest, calls); });
  });
  var barWidth = Math.max(3, Math.min(24, Math.floor(720 / Math.max(1, days.length))));
  var rowHeight = 40;
  var left = 190;
  data.usage.skills.forEach(function (skill) {
    var total = skill.calls.reduce(function (sum, calls) { return sum + calls; }, 0);
    var chart = svg("svg", {
      class: "chart usage", width: left + days.length * barWidth + 70, height: rowHeight + 4,
      role: "img", "aria-label": skill.name + ": " + total + " calls"
    }, usage);
    var name = skill.name.length > 26 ? skill.name.slice(0, 25) + "\u2026" : skill.name;
    tip(text(chart, 0, rowHeight - 12, name, { class: "label" }), skill.name);
    svg("line", { x1: left, y1: rowHeight, x2: left + days.length * barWidth, y2: rowHeight, class: "axis" }, chart);
    skill.calls.forEach(function (calls, index) {
      var height = Math.round((calls / highest) * (rowHeight - 6));
      var bar = svg("rect", {
        class: "point" + (calls === 0 ? " zero" : ""), x: left + index * barWidth, y: rowHeight - height,
        width: Math.max(1, barWidth - 1), height: Math.max(height, 1)
      }, chart);
      tip(bar, days[index] + ": " + calls + (calls === 1 ? " call" : " calls"));
      points += 1;
    });
    text(chart, left + days.length * barWidth + 8, rowHeight - 12, String(total), { class: "total" });
  });
  if (days.length > 0) {
    var scale = svg("svg", { class: "chart scale", width: left + days.length * barWidth + 70, height: 16 }, usage);
    text(scale, left, 12, days[0]);
    if (days.length > 1) {
      text(scale, left + days.length * barWidth, 12, days[days.length - 1], { "text-anchor": "end" });
    }
  }

  // Evaluations: per skill, the pass rate with and without it over the iterations.
  var evals = document.getElementById("eval-charts");
  data.evals.forEach(function (history) {
    var width = 360, height = 160, pad = 36;
    var figure = document.createElement("figure");
    evals.appendChild(figure);
    var caption = document.createElement("figcaption");
    caption.textContent = history.skill;
    figure.appendChild(caption);
    var chart = svg("svg", {
      class: "chart eval", width: width, height: height, role: "img",
      "aria-label": history.skill + ": pass rate with and without the skill per iteration"
    }, figure);
    [0, 0.5, 1].forEach(function (level) {
      var y = height - pad - level * (height - 2 * pad);
      svg("line", { x1: pad, y1: y, x2: width - 8, y2: y, class: "grid" }, chart);
      text(chart, pad - 4, y + 4, percent(level), { "text-anchor": "end", class: "tick" });
    });
    var count = history.iterations.length;
    function x(index) { return count < 2 ? (pad + width - 8) / 2 : pad + index * (width - 8 - pad) / (count - 1); }
    function y(rate) { return height - pad - rate * (height - 2 * pad); }
    history.iterations.forEach(function (iteration, index) {
      text(chart, x(index), height - pad + 16, "#" + iteration.number, { "text-anchor": "middle", class: "tick" });
    });
    ["with", "without"].forEach(function (series) {
      var line = [];
      history.iterations.forEach(function (iteration, index) {
        var rate = iteration[series];
        if (rate === null || rate === undefined) { return; }
        line.push(x(index) + "," + y(rate));
        var dot = svg("circle", { class: "point " + series, cx: x(index), cy: y(rate), r: 4 }, chart);
        tip(dot, "iteration " + iteration.number + ", " + series + " the skill: " + percent(rate));
        points += 1;
      });
      if (line.length > 1) {
        chart.insertBefore(svg("polyline", { class: "series " + series, points: line.join(" ") }), chart.firstChild);
      }
    });
    var legend = svg("g", { class: "legend" }, chart);
    svg("circle", { class: "key with", cx: pad + 4, cy: height - 8, r: 4 }, legend);
    text(legend, pad + 12, height - 4, "with the skill");
    svg("circle", { class: "key without", cx: pad + 124, cy: height - 8, r: 4 }, legend);
    text(legend, pad + 132, height - 4, "without");
  });

  // Comparisons of two versions: per figure that is a share, A's bar beside B's.
  var comparisons = document.getElementById("comparison-charts");
  (data.comparisons || []).forEach(function (comparison) {
    var shares = comparison.figures.filter(function (figure) {
      return figure.a !== null && figure.b !== null && figure.a <= 1 && figure.b <= 1 &&
        ["pass rate", "consistency", "trigger precision", "trigger recall", "over-triggering"].indexOf(figure.name) >= 0;
    });
    var width = 40 + shares.length * 70, height = 160, pad = 36;
    var figure = document.createElement("figure");
    comparisons.appendChild(figure);
    var caption = document.createElement("figcaption");
    caption.textContent = comparison.skill + ": " + comparison.a + " (A) and " + comparison.b + " (B)";
    figure.appendChild(caption);
    var chart = svg("svg", {
      class: "chart compare", width: width, height: height, role: "img",
      "aria-label": comparison.skill + ": each figure of version A beside version B"
    }, figure);
    [0, 0.5, 1].forEach(function (level) {
      var y = height - pad - level * (height - 2 * pad);
      svg("line", { x1: pad, y1: y, x2: width - 4, y2: y, class: "grid" }, chart);
      text(chart, pad - 4, y + 4, percent(level), { "text-anchor": "end", class: "tick" });
    });
    shares.forEach(function (share, index) {
      var left = pad + 8 + index * 70;
      [["a", share.a], ["b", share.b]].forEach(function (side, offset) {
        var top = height - pad - side[1] * (height - 2 * pad);
        var bar = svg("rect", {
          class: "bar version-" + side[0], x: left + offset * 24, y: top, width: 20,
          height: Math.max(1, height - pad - top)
        }, chart);
        tip(bar, share.name + ", " + side[0].toUpperCase() + ": " + percent(side[1]));
        points += 1;
      });
      text(chart, left + 22, height - pad + 14, share.name.replace("trigger ", ""), { "text-anchor": "middle", class: "tick" });
      text(chart, left + 22, height - pad + 26, share.verdict, { "text-anchor": "middle", class: "tick" });
    });
  });

  root.setAttribute("data-points", String(points));
  root.setAttribute("data-status", "ok");
})();
