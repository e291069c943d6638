print("linkwell")
