#!/usr/bin/env bash
# Refresh the translation template and every language's catalogue from the code (see web/babel.cfg), then compile.
set -euo pipefail
cd "$(dirname "$0")/.."
pybabel extract -F web/babel.cfg -k tr -k lazy_gettext -k N_ -k Message -k IllegalAction -k MalformedInput \
  -k BecherError -k fail:3 -k ApiError:3 -k Denied -k NotFound -k Malformed -k Illegal -k Finished -k Stale \
  -k NotAnImage -k TooManyPixels -o web/translations/messages.pot .
pybabel update -i web/translations/messages.pot -d web/translations --no-fuzzy-matching --ignore-obsolete
pybabel compile -d web/translations
