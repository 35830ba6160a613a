// Starts the vendored Swagger UI on /docs; the spec URL comes from the page (no inline script).
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("swagger-ui");
    if (!root || !window.SwaggerUIBundle) return;
    window.ui = window.SwaggerUIBundle({
      url: root.dataset.openapiUrl,
      dom_id: "#swagger-ui",
      deepLinking: true,
      layout: "BaseLayout",
      presets: [window.SwaggerUIBundle.presets.apis],
    });
  });
})();
