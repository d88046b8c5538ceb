int ze__placeholder;
