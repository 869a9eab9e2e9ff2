import sys

from hautetension.cli import main

sys.exit(main())
