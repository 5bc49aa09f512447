// Swagger UI on the service's own OpenAPI document; every asset is served by the service itself.
/* global SwaggerUIBundle */
window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // Requests typed into "Try it out" go to this service with the key given under "Authorize".
  persistAuthorization: false,
});
