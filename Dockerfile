# One image for every app service of docker-compose.yml: web, migrate and worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Graphviz's `dot` draws the catalog graph in the studio.
RUN apt-get update \
    && apt-get install -y --no-install-recommends graphviz \
    && rm -rf /var/lib/apt/lists/*

# Requirements first, so code changes do not reinstall them.
COPY requirements/base.txt requirements/nlu.txt requirements/
RUN pip install -r requirements/base.txt && pip install --no-deps -r requirements/nlu.txt

COPY . .
# collectstatic needs settings, not a secret: a throwaway key for this step only, so that no
# var/secret_key is baked into a layer that every container of the image would share.
RUN SECRET_KEY=build-only-not-a-secret python manage.py collectstatic --noinput \
    && test ! -e var/secret_key \
    && useradd --create-home --uid 1000 concerto \
    && mkdir -p var \
    && chown -R concerto:concerto var
USER concerto

EXPOSE 8000
# Threaded workers, counts from WEB_CONCURRENCY and GUNICORN_THREADS (config/gunicorn.py).
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"]
