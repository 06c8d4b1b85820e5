"""The one NinjaAPI of the project, mounted at /api/v1/. Each app adds its Router here."""

from ninja import NinjaAPI

api = NinjaAPI(title="Concerto API", version="1", urls_namespace="api", docs_url="/docs")

# Routers are mounted here, e.g. `api.add_router("/catalogs", catalog_router)`.
