from django.apps import AppConfig


class CatalogAppConfig(AppConfig):
    name = "catalog_app"
    label = "catalog_app"
    verbose_name = "Catalogs"
