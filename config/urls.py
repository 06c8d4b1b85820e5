from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from .api import api

# Outside the endpoints' handlers, errors keep the API's JSON shape under /api/ (config.errors).
handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/", api.urls),
    # The design promises the OpenAPI docs at /api/docs; ninja serves them under the mount point.
    path("api/docs", RedirectView.as_view(url="/api/v1/docs", permanent=False)),
    path("", include("catalog_app.urls")),
    path("", include("orchestrator.urls")),
]
