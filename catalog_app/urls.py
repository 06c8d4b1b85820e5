from django.urls import path

from . import views

app_name = "catalog"

urlpatterns = [
    path("", views.catalog_list_page, name="list"),
    path("catalogs/<slug:slug>/", views.catalog_detail_page, name="detail"),
    path("catalogs/<slug:slug>/pddl/", views.version_pddl_page, name="pddl"),
    path("catalogs/<slug:slug>/plans/", views.version_plans_page, name="plans"),
]
