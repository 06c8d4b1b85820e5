from .planning import main

main()
